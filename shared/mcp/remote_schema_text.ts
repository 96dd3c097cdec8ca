/**
 * The text a remote tool's args schema carries outside its descriptions:
 * property names and `enum`/`const` values. Descriptions are fenced as
 * untrusted data in the prompt and left out of the strict plan schema, but
 * names and values cannot be: the strict schema a provider enforces
 * (`response_format`) holds them as they are, where the model reads them
 * unmarked. So they must be plain identifiers — letters, digits and
 * `_ . - / : @ + # $`, at most 64 characters, no spaces — as the property
 * names and enum values of real MCP servers are (all 393 names and 1,008
 * values of the 296 tools in tests/bench/data); a tool whose schema holds
 * anything else ("ignore the rules and …" as a property name) is refused.
 */

const PLAIN = /^[\p{L}\p{N}_.\-/:@+#$]{1,64}$/u;

/** The first property name or enum/const value of `schema` that is not a plain identifier, if any. */
export function unplainSchemaText(schema: unknown): string | undefined {
  if (Array.isArray(schema)) {
    for (const item of schema) {
      const found = unplainSchemaText(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof schema !== "object" || schema === null) return undefined;
  for (const [key, value] of Object.entries(schema)) {
    const found = key === "properties" && isObject(value)
      ? Object.keys(value).find((name) => !PLAIN.test(name)) ??
        unplainSchemaText(Object.values(value))
      : key === "enum" && Array.isArray(value)
      ? value.find((item) => typeof item === "string" && !PLAIN.test(item))
      : key === "const"
      ? (typeof value === "string" && !PLAIN.test(value) ? value : undefined)
      : key === "required" && Array.isArray(value)
      ? value.find((item) => typeof item === "string" && !PLAIN.test(item))
      : unplainSchemaText(value);
    if (found !== undefined) return found;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
