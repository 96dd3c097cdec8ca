/**
 * The strict rewrite of one tool's args schema, for OpenAI's strict mode
 * (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas):
 *
 * - every object lists all its properties in `required` and sets
 *   `additionalProperties: false`; an optional property becomes nullable,
 *   and {@link withoutOptionalNulls} removes those nulls before validation;
 * - keywords strict mode does not take are dropped when they only narrow
 *   (`minLength`, `maxLength`, `uniqueItems`, `default`, an unsupported
 *   `format`, a `pattern` with lookaround…): the tool's own schema still
 *   checks the args afterwards; a list of scalar types becomes an `anyOf`;
 * - every value may instead be a step reference `{"$ref": "/steps/<n>/output/…"}`
 *   (see loop/references.ts): a reference to {@link STEP_REF}, which the plan
 *   schema defines once as `#/$defs/step_ref`.
 *
 * A schema that declares no properties is taken as no args. One that cannot be
 * rewritten without changing what it accepts (maps and open objects, tuples,
 * `$ref`s of its own, an any-value) has no rewrite.
 */

type Schema = Record<string, unknown>;

/** The definition of a step reference, shared by every value that may take one (`#/$defs/step_ref`). */
export const STEP_REF: Schema = {
  type: "object",
  description: "Another step's output: /steps/<n>/output followed by a JSON Pointer",
  properties: { $ref: { type: "string", pattern: "^/steps/(0|[1-9][0-9]{0,3})/output(/[^/]*)*$" } },
  required: ["$ref"],
  additionalProperties: false,
};
const REF = { $ref: "#/$defs/step_ref" };

const STRING_FORMATS = new Set(
  "date-time time date duration email hostname ipv4 ipv6 uuid".split(" "),
);
const NUMBER_KEYWORDS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
];
/** Keywords that change what a schema accepts in ways strict mode cannot express. */
const SHAPE_KEYWORDS = ("$ref $defs definitions patternProperties prefixItems additionalItems " +
  "unevaluatedProperties unevaluatedItems").split(" ");
const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

/**
 * The strict rewrite of `schema` (a tool's args), or undefined when it has
 * none; `dropDescriptions` leaves out its descriptions (a remote server's text).
 */
export function strictArgsSchema(
  schema: Record<string, unknown> | undefined,
  { dropDescriptions = false }: { dropDescriptions?: boolean } = {},
): Record<string, unknown> | undefined {
  const root = argsRoot(schema);
  const args = strictNode(dropDescriptions ? withoutDescriptions(root) : root);
  return args?.type === "object" ? args : undefined;
}

/**
 * A tool's args schema; one that declares no properties (`{"type": "object"}`,
 * common for MCP tools without args) is taken as taking none.
 */
function argsRoot(schema: Record<string, unknown> | undefined): Schema {
  if (!schema) return { type: "object", properties: {} };
  const declaresNothing = schema.type === "object" && !("properties" in schema) &&
    !("additionalProperties" in schema) && !("patternProperties" in schema);
  return declaresNothing ? { ...schema, properties: {} } : schema;
}

/** `schema` without its `description`s (property names called "description" stay). */
function withoutDescriptions(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDescriptions);
  if (!isObject(schema)) return schema;
  return Object.fromEntries(
    Object.entries(schema).filter(([key]) => key !== "description").map(([key, value]) => [
      key,
      key === "properties" && isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutDescriptions(v)]))
        : key === "enum" || key === "const"
        ? value
        : withoutDescriptions(value),
    ]),
  );
}

/**
 * `value` (a plan's args) without the nulls a strict schema made the model
 * write for optional properties it had nothing for; nulls the tool's own
 * schema accepts are kept.
 */
export function withoutOptionalNulls(value: unknown, schema: unknown): unknown {
  if (!isObject(schema) || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => withoutOptionalNulls(item, schema.items));
  if (isStepReference(value)) return value;
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (!isObject(schema.properties)) {
    const branch = branches?.find((b) => isObject(b) && isObject(b.properties));
    return branch ? withoutOptionalNulls(value, branch) : value;
  }
  const properties = schema.properties;
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) =>
        item !== null || required.includes(key) || acceptsNull(properties[key])
      )
      .map(([key, item]) => [key, withoutOptionalNulls(item, properties[key])]),
  );
}

/** The strict rewrite of one schema node, or undefined when it has none. */
function strictNode(node: unknown): Schema | undefined {
  if (!isObject(node) || SHAPE_KEYWORDS.some((k) => k in node)) return undefined;
  const description = typeof node.description === "string" ? { description: node.description } : {};
  const allOf = node.allOf as unknown[] | undefined;
  if (allOf !== undefined) {
    if (!Array.isArray(allOf) || allOf.length !== 1 || !isObject(allOf[0])) return undefined;
    const { allOf: _merged, ...rest } = node;
    return strictNode({ ...rest, ...allOf[0] });
  }
  const choices = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
  if (choices !== undefined) {
    if (!Array.isArray(choices) || choices.length === 0) return undefined;
    const branches = choices.map(strictNode);
    if (branches.some((b) => b === undefined)) return undefined;
    return {
      anyOf: branches.flatMap((b) => (b!.anyOf as Schema[] | undefined) ?? [b!]),
      ...description,
    };
  }
  // Copies, not the tool's own values: the rewrite is cached frozen (strict_plan_schema.ts).
  const out: Schema = { ...description };
  if (Array.isArray(node.enum)) out.enum = structuredClone(node.enum);
  if ("const" in node) out.const = structuredClone(node.const);
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  if (types.length === 0) return "enum" in out || "const" in out ? out : undefined;
  if (types.length > 1) return strictTypeList(node, types);
  const [type] = types;
  out.type = type;
  if (type === "string") copyStringKeywords(node, out);
  else if (type === "number" || type === "integer") copyNumberKeywords(node, out);
  else if (type === "array") return strictArray(node, out);
  else if (type === "object") return strictObject(node, out);
  else if (!SCALAR_TYPES.has(type as string)) return undefined;
  return out;
}

/**
 * A list of scalar types (`{"type": ["string", "number"]}`) as an `anyOf`
 * of one branch per type, each with its own keywords and the enum values of
 * its type: the list form is documented only as a type with `null`.
 */
function strictTypeList(node: Schema, types: unknown[]): Schema | undefined {
  if (!types.every((t) => SCALAR_TYPES.has(t as string))) return undefined;
  const { description, ...rest } = node;
  const branches: Schema[] = [];
  for (const type of new Set(types as string[])) {
    const branch: Schema = { ...rest, type };
    if (Array.isArray(node.enum)) branch.enum = node.enum.filter((v) => isOfType(v, type));
    if (Array.isArray(branch.enum) && branch.enum.length === 0) continue;
    if ("const" in node && !isOfType(node.const, type)) continue;
    branches.push(branch);
  }
  if (branches.length === 0) return undefined;
  return strictNode({
    anyOf: branches,
    ...(typeof description === "string" ? { description } : {}),
  });
}

function isOfType(value: unknown, type: string): boolean {
  if (type === "null") return value === null;
  if (type === "integer") return Number.isInteger(value);
  if (type === "number") return typeof value === "number";
  if (type === "boolean") return typeof value === "boolean";
  return typeof value === "string";
}

function strictObject(node: Schema, out: Schema): Schema | undefined {
  const extra = node.additionalProperties;
  const open = extra !== undefined && extra !== false && extra !== true &&
    !(isObject(extra) && Object.keys(extra).length === 0);
  // A map (`z.record`) or an object with no declared properties has nothing strict can say.
  if (open || (!isObject(node.properties) && extra !== false)) return undefined;
  const properties = isObject(node.properties) ? node.properties : {};
  const required = Array.isArray(node.required) ? node.required : [];
  const strict: [string, Schema][] = [];
  for (const [key, value] of Object.entries(properties)) {
    const converted = strictValue(value, !required.includes(key));
    if (!converted) return undefined;
    strict.push([key, converted]);
  }
  return {
    ...out,
    // fromEntries, not assignment: a property may be called `__proto__` (a setter outside Deno).
    properties: Object.fromEntries(strict),
    required: strict.map(([key]) => key),
    additionalProperties: false,
  };
}

function strictArray(node: Schema, out: Schema): Schema | undefined {
  if (!isObject(node.items)) return undefined;
  const items = strictValue(node.items, false);
  if (!items) return undefined;
  for (const key of ["minItems", "maxItems"]) {
    if (typeof node[key] === "number") out[key] = node[key];
  }
  return { ...out, items };
}

/** A property's or item's schema: itself, a step reference, or (when optional) null. */
function strictValue(node: unknown, optional: boolean): Schema | undefined {
  const base = strictNode(node);
  if (!base) return undefined;
  // The description goes on the union only: once is what the model needs (and is billed for).
  const { description, ...rest } = base;
  const branches = (rest.anyOf as Schema[] | undefined) ?? [rest];
  const withNull = optional && !acceptsNull(base) ? [{ type: "null" }] : [];
  return {
    anyOf: [...branches, REF, ...withNull],
    ...(typeof description === "string" ? { description } : {}),
  };
}

function copyStringKeywords(node: Schema, out: Schema): void {
  if (typeof node.format === "string" && STRING_FORMATS.has(node.format)) out.format = node.format;
  // Lookaround and backreferences are beyond the patterns strict mode takes.
  if (typeof node.pattern === "string" && !/\(\?[=!<]|\\[1-9]|\\k</.test(node.pattern)) {
    out.pattern = node.pattern;
  }
}

function copyNumberKeywords(node: Schema, out: Schema): void {
  for (const key of NUMBER_KEYWORDS) if (typeof node[key] === "number") out[key] = node[key];
}

function acceptsNull(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))) {
    return true;
  }
  if (schema.const === null || (Array.isArray(schema.enum) && schema.enum.includes(null))) {
    return true;
  }
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  return Array.isArray(branches) && branches.some(acceptsNull);
}

function isStepReference(value: object): boolean {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "$ref" &&
    typeof (value as { $ref: unknown }).$ref === "string";
}

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
