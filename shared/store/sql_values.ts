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
 * JSON text safe for a jsonb column: strings pass through {@link toSafeText}, values JSON cannot hold become strings, and a value larger
 * than `maxChars` is replaced by a truncated preview.
 */
export function toJsonb(value: unknown, maxChars = 65_536): string {
  let text: string;
  try {
    text = JSON.stringify(value ?? null) ?? "null";
    // Rare: NUL or a lone surrogate, which JSON.stringify writes as escapes Postgres rejects.
    if (text.includes("\\u0000") || /\\ud[89a-f]/i.test(text)) {
      text = JSON.stringify(value, (_key, v) => typeof v === "string" ? toSafeText(v) : v);
    }
  } catch {
    try {
      text = JSON.stringify(
        value,
        (_key, v) =>
          typeof v === "bigint" ? v.toString() : typeof v === "string" ? toSafeText(v) : v,
      );
    } catch (error) {
      return JSON.stringify({ unserializable: String(error) });
    }
  }
  if (text.length <= maxChars) return text;
  return JSON.stringify({ truncated: true, chars: text.length, preview: text.slice(0, 1_000) });
}

/** Text Postgres accepts: NUL characters and lone surrogates become U+FFFD. */
export function toSafeText(text: string): string {
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return wellFormed.includes("\0") ? wellFormed.replaceAll("\0", "\uFFFD") : wellFormed;
}
