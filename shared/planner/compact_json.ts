/** JSON for model prompts, cut to a character budget. */

/**
 * `value` as indented JSON of at most `maxChars`: long strings and arrays are
 * cut first (harder each round), and the text itself last.
 */
export function compactJson(value: unknown, maxChars: number): string {
  for (const [stringMax, arrayMax] of [[4_000, 50], [1_000, 20], [300, 10], [100, 5], [40, 3]]) {
    const text = JSON.stringify(shrink(value, stringMax, arrayMax, 0), null, 2) ?? "null";
    if (text.length <= maxChars) return text;
  }
  const text = JSON.stringify(shrink(value, 40, 3, 0)) ?? "null";
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}… (truncated)`;
}

function shrink(
  value: unknown,
  stringMax: number,
  arrayMax: number,
  depth: number,
  keepTail = false,
): unknown {
  if (typeof value === "string") {
    return value.length > stringMax
      ? `${value.slice(0, stringMax)}… (${value.length - stringMax} more characters)`
      : value;
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object" || value === null) return value;
  if (depth > 6) return "…";
  if (Array.isArray(value)) {
    const items = (keepTail ? value.slice(-arrayMax) : value.slice(0, arrayMax))
      .map((item) => shrink(item, stringMax, arrayMax, depth + 1));
    if (value.length <= arrayMax) return items;
    const note = `… ${value.length - arrayMax} ${keepTail ? "earlier" : "more"} entries omitted`;
    return keepTail ? [note, ...items] : [...items, note];
  }
  // Recent messages are oldest first: when cut, keep the newest.
  return Object.fromEntries(
    Object.entries(value).map((
      [k, v],
    ) => [k, shrink(v, stringMax, arrayMax, depth + 1, k === "recentMessages")]),
  );
}
