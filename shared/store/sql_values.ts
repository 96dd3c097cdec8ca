/** Conversions between JavaScript values and the SQL the stores send. */

/** Stored vectors have this many dimensions; shorter ones are zero-padded. */
export const STORED_DIMENSIONS = 1536;

/** A pgvector literal (`[0.1,0.2,…]`), zero-padded to {@link STORED_DIMENSIONS}. */
export function toVectorLiteral(vector: readonly number[]): string {
  if (vector.length > STORED_DIMENSIONS) {
    throw new RangeError(
      `An embedding has ${vector.length} dimensions; at most ${STORED_DIMENSIONS} can be stored`,
    );
  }
  const parts = new Array<string>(STORED_DIMENSIONS);
  for (let i = 0; i < STORED_DIMENSIONS; i++) {
    const value = vector[i] ?? 0;
    if (!Number.isFinite(value)) {
      throw new RangeError(`An embedding holds a non-finite value at ${i}`);
    }
    parts[i] = value === 0 ? "0" : value.toPrecision(7);
  }
  return `[${parts.join(",")}]`;
}

/** A timestamp from either driver as an ISO string. */
export function toIso(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return new Date(String(value)).toISOString();
}

/**
 * JSON text safe for a jsonb column, whatever `value` holds: Postgres refuses
 * the escapes `\u0000` and lone surrogates anywhere in a JSON document, object
 * keys included, so every key and string, however deep, passes through
 * {@link toSafeText} (two keys that become equal keep the later value).
 * Values JSON cannot hold become strings (bigint) or are dropped as
 * JSON.stringify drops them; a cycle becomes an `unserializable` note. A
 * document longer than `maxChars` is replaced by a truncated preview.
 */
export function toJsonb(value: unknown, maxChars = 65_536): string {
  let text: string;
  try {
    text = JSON.stringify(value ?? null) ?? "null";
  } catch {
    try {
      text = JSON.stringify(value, (_key, v) => typeof v === "bigint" ? v.toString() : v) ??
        "null";
    } catch (error) {
      return JSON.stringify({ unserializable: toSafeText(String(error)) });
    }
  }
  // Rare: NUL or a lone surrogate, which JSON.stringify writes as escapes Postgres rejects.
  if (UNSAFE_ESCAPE.test(text)) text = JSON.stringify(safeJson(JSON.parse(text)));
  if (text.length <= maxChars) return text;
  return JSON.stringify({
    truncated: true,
    chars: text.length,
    preview: toSafeText(text.slice(0, 1_000)),
  });
}

/** `\u0000`, or a surrogate escape JSON.stringify writes only for a lone surrogate. */
const UNSAFE_ESCAPE = /\\u0000|\\ud[89a-f]/i;

/** Parsed JSON with every key and string made safe (see {@link toSafeText}). */
function safeJson(value: unknown): unknown {
  if (typeof value === "string") return toSafeText(value);
  if (Array.isArray(value)) return value.map(safeJson);
  if (value === null || typeof value !== "object") return value;
  // No prototype: a "__proto__" key from the input is an ordinary key here, as in the JSON.
  const safe: Record<string, unknown> = Object.create(null);
  for (const [key, inner] of Object.entries(value)) safe[toSafeText(key)] = safeJson(inner);
  return safe;
}

/** Text Postgres accepts: NUL characters and lone surrogates become U+FFFD. */
export function toSafeText(text: string): string {
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return wellFormed.includes("\0") ? wellFormed.replaceAll("\0", "\uFFFD") : wellFormed;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The ids that are UUIDs: any other names no row of a `uuid` column (and would fail the cast). */
export function uuidsIn(ids: readonly string[]): string[] {
  return ids.filter((id) => UUID.test(id));
}
