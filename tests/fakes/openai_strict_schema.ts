/**
 * What OpenAI refuses in a strict `json_schema` response format, for the fake
 * server. Written from the Structured Outputs guide, "Supported schemas" and
 * its limits
 * (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas),
 * and independently of the planner's own strict-schema builder, so the two can
 * disagree and a test then fails:
 *
 * - the root is an object, not `anyOf`;
 * - every object sets `additionalProperties: false` and lists every property
 *   in `required` (optional fields are unions with `null`);
 * - types: string, number, integer, boolean, object, array, null, `enum`,
 *   `const`, `anyOf` (each branch a valid schema), `$ref` into `$defs` or `#`;
 *   a list of types only as one type and `"null"` (the guide's only form; the
 *   SDK validator below refuses any other);
 * - keywords beyond those: string `pattern` and `format` (date-time, time,
 *   date, duration, email, hostname, ipv4, ipv6, uuid); number `multipleOf`,
 *   `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`; array
 *   `items`, `minItems`, `maxItems`; and `description`/`title`. Anything else
 *   (`allOf`, `not`, `if`/`then`/`else`, `dependentRequired`,
 *   `dependentSchemas`, `patternProperties`, `propertyNames`, `minLength`,
 *   `maxLength`, `uniqueItems`, `prefixItems`, `default`, …) is refused;
 * - at most 5,000 object properties in all; at most 120,000 characters over
 *   property names, definition names, enum and const values (a value that is
 *   not a string counts as its JSON text); at most 1,000 enum values in all;
 *   a string enum of more than 250 values at most 15,000 characters;
 * - at most 10 levels of nesting. The guide does not say how levels are
 *   counted. OpenAI's SDK validator (openai/openai-java,
 *   `openai-java-core/src/main/kotlin/com/openai/core/JsonSchemaValidator.kt`)
 *   counts each step into a property, `items`, an `anyOf` branch or a `$defs`
 *   entry as a level, from 0 at the root, and does not follow `$ref`; the API
 *   refused a plan schema whose deepest value that count puts at level 10
 *   ("nesting exceeds the limit of 10 levels", issue 35). So this fake counts
 *   more strictly: the root is level 1, and a `$ref` counts as its target put
 *   where the reference is (a reference back into a definition already being
 *   expanded is not expanded again: recursion is allowed).
 *
 * The totals count the schema as written (each definition once). The messages
 * follow the real ones: `In context=('properties', 'x'), ...`.
 */

const COMMON = new Set(["type", "description", "title", "enum", "const", "anyOf", "$ref"]);
const BY_TYPE: Record<string, Set<string>> = {
  string: new Set(["pattern", "format"]),
  number: new Set(["multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
  integer: new Set(["multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
  array: new Set(["items", "minItems", "maxItems"]),
  object: new Set(["properties", "required", "additionalProperties"]),
  boolean: new Set(),
  null: new Set(),
};
const FORMATS = new Set("date-time time date duration email hostname ipv4 ipv6 uuid".split(" "));

/** The documented limits. */
export const STRICT_LIMITS = {
  properties: 5_000,
  nesting: 10,
  stringLength: 120_000,
  enumValues: 1_000,
  largeEnum: 250,
  largeEnumLength: 15_000,
};

type Schema = Record<string, unknown>;

interface Tally {
  properties: number;
  stringLength: number;
  enumValues: number;
}

/** Why OpenAI would refuse `schema` as a strict response format, or undefined when it would not. */
export function strictSchemaProblem(schema: unknown): string | undefined {
  if (!isObject(schema) || schema.type !== "object" || "anyOf" in schema) {
    return "In context=(), schema must be a JSON Schema of 'type: \"object\"', got 'type: \"" +
      String(isObject(schema) ? schema.type ?? (schema.anyOf ? "anyOf" : "none") : typeof schema) +
      "\"'.";
  }
  const defs = { ...asObject(schema.$defs), ...asObject(schema.definitions) };
  const tally: Tally = { properties: 0, stringLength: 0, enumValues: 0 };
  for (const name of Object.keys(defs)) tally.stringLength += name.length;
  const seen = new Set<unknown>();
  let problem = check(schema, [], { root: schema, tally, seen });
  // Definitions no reference reached are checked too (each one once).
  for (const [name, def] of Object.entries(defs)) {
    if (problem || seen.has(def)) continue;
    seen.add(def);
    problem = check(def, ["$defs", name], { root: schema, tally, seen });
  }
  if (problem) return problem;
  const deepest = deepestLevel(schema, { root: schema, level: 1, context: [], expanding: [] });
  if (deepest.level > STRICT_LIMITS.nesting) {
    return `In context=(${
      deepest.context.map((c) => `'${c}'`).join(", ")
    }), ${deepest.level} levels of nesting exceeds the limit of ${STRICT_LIMITS.nesting} levels.`;
  }
  if (tally.properties > STRICT_LIMITS.properties) {
    return `The schema has ${tally.properties} object properties in total; at most ${STRICT_LIMITS.properties} are allowed.`;
  }
  if (tally.stringLength > STRICT_LIMITS.stringLength) {
    return `The total string length of property names, definition names, enum values and const values is ${tally.stringLength}; at most ${STRICT_LIMITS.stringLength} is allowed.`;
  }
  if (tally.enumValues > STRICT_LIMITS.enumValues) {
    return `The schema has ${tally.enumValues} enum values in total; at most ${STRICT_LIMITS.enumValues} are allowed.`;
  }
  return undefined;
}

interface Walk {
  root: Schema;
  tally: Tally;
  seen: Set<unknown>;
}

function check(node: unknown, context: string[], walk: Walk): string | undefined {
  const where = `In context=(${context.map((c) => `'${c}'`).join(", ")})`;
  if (!isObject(node)) return `${where}, schema must be a JSON Schema object.`;
  if (typeof node.$ref === "string") {
    if (Object.keys(node).some((k) => k !== "$ref" && k !== "description")) {
      return `${where}, '$ref' cannot have keywords {${
        Object.keys(node).filter((k) => k !== "$ref" && k !== "description").join(", ")
      }}.`;
    }
    const target = resolve(walk.root, node.$ref);
    if (target === undefined) return `${where}, reference to '${node.$ref}' can't be resolved.`;
    // A recursive schema is allowed; check each definition once.
    if (walk.seen.has(target)) return undefined;
    walk.seen.add(target);
    return check(target, [...context, "$ref"], walk);
  }
  if (Array.isArray(node.anyOf)) {
    if (node.anyOf.length === 0) return `${where}, 'anyOf' must not be empty.`;
    const extra = Object.keys(node).filter((k) => !["anyOf", "description", "title"].includes(k));
    if (extra.length > 0) return `${where}, 'anyOf' cannot be combined with {${extra.join(", ")}}.`;
    for (const [i, branch] of node.anyOf.entries()) {
      const problem = check(branch, [...context, "anyOf", String(i)], walk);
      if (problem) return problem;
    }
    return undefined;
  }
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  if (types.length === 0 && node.enum === undefined && node.const === undefined) {
    return `${where}, schema must have a 'type' key.`;
  }
  for (const type of types) {
    if (typeof type !== "string" || !(type in BY_TYPE)) {
      return `${where}, type '${String(type)}' is not supported.`;
    }
  }
  if (
    Array.isArray(node.type) &&
    !(types.length === 2 && types.filter((t) => t === "null").length === 1)
  ) {
    return `${where}, a list of types must be one type and 'null', got ${
      JSON.stringify(node.type)
    }.`;
  }
  const allowed = new Set([...COMMON, ...types.flatMap((t) => [...BY_TYPE[t as string]])]);
  if (context.length === 0) allowed.add("$defs").add("definitions");
  for (const key of Object.keys(node)) {
    if (!allowed.has(key)) return `${where}, '${key}' is not permitted.`;
  }
  if (typeof node.format === "string" && !FORMATS.has(node.format)) {
    return `${where}, format '${node.format}' is not supported.`;
  }
  const enumProblem = tallyValues(node, where, walk.tally);
  if (enumProblem) return enumProblem;
  if (types.includes("array")) {
    if (node.items === undefined) return `${where}, 'items' is required for an array.`;
    const problem = check(node.items, [...context, "items"], walk);
    if (problem) return problem;
  }
  if (types.includes("object")) return checkObject(node, context, where, walk);
  return undefined;
}

function checkObject(
  node: Schema,
  context: string[],
  where: string,
  walk: Walk,
): string | undefined {
  if (node.additionalProperties !== false) {
    return `${where}, 'additionalProperties' is required to be supplied and to be false.`;
  }
  const properties = asObject(node.properties);
  const required = Array.isArray(node.required) ? node.required : [];
  const missing = Object.keys(properties).filter((key) => !required.includes(key));
  if (!Array.isArray(node.required) && Object.keys(properties).length > 0 || missing.length > 0) {
    return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${
      missing[0]
    }'.`;
  }
  const extra = required.find((key) => typeof key !== "string" || !(key in properties));
  if (extra !== undefined) {
    return `${where}, 'required' names '${String(extra)}', which is not in properties.`;
  }
  for (const [key, value] of Object.entries(properties)) {
    walk.tally.properties++;
    walk.tally.stringLength += key.length;
    const problem = check(value, [...context, "properties", key], walk);
    if (problem) return problem;
  }
  return undefined;
}

function tallyValues(node: Schema, where: string, tally: Tally): string | undefined {
  if ("const" in node) tally.stringLength += textLength(node.const);
  if (node.enum === undefined) return undefined;
  if (!Array.isArray(node.enum) || node.enum.length === 0) {
    return `${where}, 'enum' must be a non-empty array.`;
  }
  tally.enumValues += node.enum.length;
  const strings = node.enum.filter((v): v is string => typeof v === "string");
  const length = strings.reduce((sum, v) => sum + v.length, 0);
  for (const value of node.enum) tally.stringLength += textLength(value);
  if (strings.length > STRICT_LIMITS.largeEnum && length > STRICT_LIMITS.largeEnumLength) {
    return `${where}, an enum of ${strings.length} string values may total at most ${STRICT_LIMITS.largeEnumLength} characters; it has ${length}.`;
  }
  return undefined;
}

/** The schema `ref` names: the root (`#`) or a definition (`#/$defs/x`, `#/definitions/x`). */
function resolve(root: Schema, ref: string): unknown {
  if (ref === "#") return root;
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!match) return undefined;
  const defs = asObject(root[match[1]]);
  const name = match[2].replaceAll("~1", "/").replaceAll("~0", "~");
  return Object.hasOwn(defs, name) ? defs[name] : undefined;
}

interface Level {
  level: number;
  context: string[];
}

/**
 * The deepest level in `node` (itself at `at.level`) and where it is: each
 * property, `items`, `anyOf` branch and definition one level below its
 * parent; a `$ref` is its target at the reference's level.
 */
function deepestLevel(
  node: unknown,
  at: { root: Schema; level: number; context: string[]; expanding: unknown[] },
): Level {
  let deepest: Level = { level: at.level, context: at.context };
  if (!isObject(node) || at.level > STRICT_LIMITS.nesting) return deepest;
  if (typeof node.$ref === "string") {
    const target = resolve(at.root, node.$ref);
    if (target === undefined || at.expanding.includes(target)) return deepest;
    return deepestLevel(target, {
      ...at,
      context: [...at.context, "$ref"],
      expanding: [...at.expanding, target],
    });
  }
  const below: [string[], unknown][] = [
    ...Object.entries(asObject(node.properties)).map(([k, v]): [string[], unknown] => [
      ["properties", k],
      v,
    ]),
    ...(node.items === undefined ? [] : [[["items"], node.items] as [string[], unknown]]),
    ...(Array.isArray(node.anyOf)
      ? node.anyOf.map((v, i): [string[], unknown] => [["anyOf", String(i)], v])
      : []),
    ...["$defs", "definitions"].flatMap((key) =>
      Object.entries(asObject(node[key])).map(([k, v]): [string[], unknown] => [[key, k], v])
    ),
  ];
  for (const [path, child] of below) {
    const found = deepestLevel(child, {
      ...at,
      level: at.level + 1,
      context: [...at.context, ...path],
    });
    if (found.level > deepest.level) deepest = found;
  }
  return deepest;
}

/** Characters a value adds to the string total: a string's length, anything else's JSON text. */
function textLength(value: unknown): number {
  return typeof value === "string" ? value.length : JSON.stringify(value)?.length ?? 0;
}

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asObject(value: unknown): Schema {
  return isObject(value) ? value : {};
}
