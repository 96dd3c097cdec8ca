/** Nesting depth of parsed JSON, measured without recursion (deep input cannot overflow the stack). */

/** Is `value` nested deeper than `limit` arrays/objects? */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Deepest nesting accepted in a request body; more would only serve to exhaust the server. */
export const MAX_JSON_DEPTH = 64;
