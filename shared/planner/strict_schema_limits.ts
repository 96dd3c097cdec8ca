/**
 * The size limits OpenAI documents for a strict structured-output schema
 * (Structured Outputs guide, "Supported schemas", limits:
 * https://platform.openai.com/docs/guides/structured-outputs#supported-schemas),
 * and how a schema is measured against them.
 *
 * Nesting is counted the way OpenAI's own SDK validator counts it
 * (openai/openai-java, `JsonSchemaValidator.kt`: each step into a property's
 * schema, an array's `items`, an `anyOf` branch or a `$defs` entry is one
 * level), made stricter where the guide is silent, because the API refused a
 * plan schema that validator accepts (issue 35): the root is level 1, not 0,
 * and a `$ref` counts as its definition placed where the reference is (a
 * reference back into a definition being expanded is not expanded again, so
 * recursion stays finite). The totals (properties, names, enum values) count
 * the schema as written: each definition once.
 */

/** Strict mode's documented limits. */
export const STRICT_SCHEMA_LIMITS = {
  /** Object properties in the whole schema. */
  properties: 5_000,
  /** Levels of nesting (see above for how they are counted). */
  nesting: 10,
  /** Characters over property names, definition names, enum values and const values. */
  stringLength: 120_000,
  /** Enum values in the whole schema. */
  enumValues: 1_000,
  /** A string enum with more values than this … */
  largeEnum: 250,
  /** … may total at most this many characters. */
  largeEnumLength: 15_000,
} as const;

/** A schema's measures, as the limits count them. */
export interface SchemaSize {
  /** Levels from the schema itself (level 1) to its deepest subschema. */
  levels: number;
  properties: number;
  stringLength: number;
  enumValues: number;
  /** Whether one string enum has more than 250 values totalling more than 15,000 characters. */
  largeEnum: boolean;
}

/** The totals a whole schema must keep within (each has a limit of the same name). */
export type TotalLimit = "properties" | "stringLength" | "enumValues";

/** The totals, in the order they are checked. */
export const TOTAL_LIMITS: readonly TotalLimit[] = ["properties", "stringLength", "enumValues"];

type Schema = Record<string, unknown>;

/** Measures `schema`; a `$ref` of the form `#/$defs/<name>` is looked up in `defs`. */
export function measureSchema(
  schema: unknown,
  { defs = {} }: { defs?: Record<string, unknown> } = {},
): SchemaSize {
  const size: SchemaSize = {
    levels: 0,
    properties: 0,
    stringLength: 0,
    enumValues: 0,
    largeEnum: false,
  };
  tallyWritten(schema, size);
  const resolve = (ref: string) =>
    ref.startsWith("#/$defs/") && Object.hasOwn(defs, ref.slice(8))
      ? defs[ref.slice(8)]
      : undefined;
  size.levels = levels(schema, resolve, new Set());
  return size;
}

/** The first total of `size` past its limit, or undefined. */
export function exceededTotal(size: SchemaSize): TotalLimit | undefined {
  return TOTAL_LIMITS.find((limit) => size[limit] > STRICT_SCHEMA_LIMITS[limit]);
}

/** The characters a value adds to the string total (a non-string counts as its JSON text). */
function valueLength(value: unknown): number {
  return typeof value === "string" ? value.length : JSON.stringify(value)?.length ?? 0;
}

/** The deepest level under `node` (itself level 1), references expanded where they are used. */
function levels(node: unknown, resolve: (ref: string) => unknown, expanding: Set<unknown>): number {
  if (!isObject(node)) return 1;
  if (typeof node.$ref === "string") {
    const target = resolve(node.$ref);
    if (!isObject(target) || expanding.has(target)) return 1;
    expanding.add(target);
    const depth = levels(target, resolve, expanding);
    expanding.delete(target);
    return depth;
  }
  let deepest = 0;
  for (const child of children(node)) {
    deepest = Math.max(deepest, levels(child, resolve, expanding));
  }
  return 1 + deepest;
}

/** The subschemas one level below `node`. */
function children(node: Schema): unknown[] {
  return [
    ...(isObject(node.properties) ? Object.values(node.properties) : []),
    ...(isObject(node.items) ? [node.items] : []),
    ...(Array.isArray(node.anyOf) ? node.anyOf : []),
    ...(isObject(node.$defs) ? Object.values(node.$defs) : []),
  ];
}

/** Adds the totals of `node` as written (definitions once, references not followed). */
function tallyWritten(node: unknown, size: SchemaSize): void {
  if (!isObject(node)) return;
  if (Array.isArray(node.enum)) {
    size.enumValues += node.enum.length;
    const strings = node.enum.filter((v): v is string => typeof v === "string");
    const length = strings.reduce((sum, v) => sum + v.length, 0);
    size.stringLength += node.enum.reduce((sum: number, v) => sum + valueLength(v), 0);
    if (strings.length > STRICT_SCHEMA_LIMITS.largeEnum) {
      size.largeEnum ||= length > STRICT_SCHEMA_LIMITS.largeEnumLength;
    }
  }
  if ("const" in node) size.stringLength += valueLength(node.const);
  if (isObject(node.properties)) {
    for (const name of Object.keys(node.properties)) {
      size.properties++;
      size.stringLength += name.length;
    }
  }
  if (isObject(node.$defs)) {
    for (const name of Object.keys(node.$defs)) size.stringLength += name.length;
  }
  for (const child of children(node)) tallyWritten(child, size);
}

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
