/**
 * The plan schema for strict structured output: each step is one choice per
 * tool (`{tool: "<name>", args: <that tool's args schema>}`), so a provider
 * that enforces it can only return args that validate. OpenAI's strict mode
 * takes a subset of JSON Schema
 * (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas),
 * so each args schema is rewritten:
 *
 * - every object lists all its properties in `required` and sets
 *   `additionalProperties: false`; an optional property becomes nullable,
 *   and {@link withoutOptionalNulls} removes those nulls before validation;
 * - keywords strict mode does not take are dropped when they only narrow
 *   (`minLength`, `maxLength`, `uniqueItems`, `default`, an unsupported
 *   `format`, a `pattern` with lookaround…): the tool's own schema still
 *   checks the args afterwards;
 * - every value may instead be a step reference `{"$ref": "/steps/<n>/output/…"}`
 *   (see loop/references.ts), one shared definition.
 *
 * A tool whose args schema declares no properties is offered with no args.
 * A schema that cannot be rewritten without changing what it accepts (maps
 * and open objects, tuples, `$ref`s of its own, an any-value) or a tool set
 * past strict mode's size limits gives no strict schema: the planner then
 * sends the loose one.
 */
import type { PlannerTool } from "../ports.ts";

type Schema = Record<string, unknown>;

/** Strict mode's documented limits. */
export const STRICT_SCHEMA_LIMITS = {
  properties: 5_000,
  nesting: 10,
  stringLength: 120_000,
  enumValues: 1_000,
};

/** The definition of a step reference, shared by every value that may take one. */
const STEP_REF: Schema = {
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

/** The strict plan schema for `tools`, or undefined when it cannot be made or is too large. */
export function strictPlanSchema(
  tools: readonly PlannerTool[],
): Record<string, unknown> | undefined {
  const steps: Schema[] = [];
  for (const tool of tools) {
    // A remote server's descriptions are its text: the prompt shows them marked as untrusted
    // data, so they stay out of the schema, which the model reads unmarked.
    const root = argsRoot(tool.argsSchema);
    const args = strictNode(tool.remote ? withoutDescriptions(root) : root);
    if (args?.type !== "object") return undefined;
    steps.push({
      type: "object",
      properties: { tool: { type: "string", enum: [tool.name] }, args },
      required: ["tool", "args"],
      additionalProperties: false,
    });
  }
  if (steps.length === 0) return undefined;
  const schema: Schema = {
    type: "object",
    properties: {
      plan: { type: "array", maxItems: 5, items: steps.length === 1 ? steps[0] : { anyOf: steps } },
    },
    required: ["plan"],
    additionalProperties: false,
    $defs: { step_ref: STEP_REF },
  };
  return withinLimits(schema) ? schema : undefined;
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
  const out: Schema = { ...description };
  if (Array.isArray(node.enum)) out.enum = node.enum;
  if ("const" in node) out.const = node.const;
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  if (types.length === 0) return "enum" in out || "const" in out ? out : undefined;
  if (types.length > 1 && !types.every((t) => SCALAR_TYPES.has(t as string))) return undefined;
  out.type = node.type;
  for (const type of types) {
    if (type === "string") copyStringKeywords(node, out);
    else if (type === "number" || type === "integer") copyNumberKeywords(node, out);
    else if (type === "array") return strictArray(node, out);
    else if (type === "object") return strictObject(node, out);
    else if (!SCALAR_TYPES.has(type as string)) return undefined;
  }
  return out;
}

function strictObject(node: Schema, out: Schema): Schema | undefined {
  const extra = node.additionalProperties;
  const open = extra !== undefined && extra !== false && extra !== true &&
    !(isObject(extra) && Object.keys(extra).length === 0);
  // A map (`z.record`) or an object with no declared properties has nothing strict can say.
  if (open || (!isObject(node.properties) && extra !== false)) return undefined;
  const properties = isObject(node.properties) ? node.properties : {};
  const required = Array.isArray(node.required) ? node.required : [];
  const strict: Schema = {};
  for (const [key, value] of Object.entries(properties)) {
    const converted = strictValue(value, !required.includes(key));
    if (!converted) return undefined;
    strict[key] = converted;
  }
  return {
    ...out,
    properties: strict,
    required: Object.keys(strict),
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
  const { description, ...rest } = base;
  const branches = (rest.anyOf as Schema[] | undefined) ?? [base];
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

/** Within strict mode's limits on properties, nesting, enum values and string length? */
function withinLimits(schema: Schema): boolean {
  const tally = { properties: 0, stringLength: 0, enumValues: 0, nesting: 0 };
  const walk = (node: unknown, depth: number) => {
    if (!isObject(node)) return;
    if (Array.isArray(node.enum)) {
      tally.enumValues += node.enum.length;
      for (const v of node.enum) if (typeof v === "string") tally.stringLength += v.length;
    }
    if (typeof node.const === "string") tally.stringLength += node.const.length;
    const level = node.type === "object" ? depth + 1 : depth;
    tally.nesting = Math.max(tally.nesting, level);
    if (isObject(node.properties)) {
      for (const [key, value] of Object.entries(node.properties)) {
        tally.properties++;
        tally.stringLength += key.length;
        walk(value, level);
      }
    }
    walk(node.items, level);
    if (Array.isArray(node.anyOf)) { for (const branch of node.anyOf) walk(branch, level); }
    // The shared step reference is one object deeper wherever it is used.
    if (node.$ref === REF.$ref) tally.nesting = Math.max(tally.nesting, depth + 1);
  };
  walk(schema, 0);
  walk(STEP_REF, 0);
  tally.stringLength += "step_ref".length;
  const limits = STRICT_SCHEMA_LIMITS;
  return tally.properties <= limits.properties && tally.nesting <= limits.nesting &&
    tally.stringLength <= limits.stringLength && tally.enumValues <= limits.enumValues;
}

function isStepReference(value: object): boolean {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "$ref" &&
    typeof (value as { $ref: unknown }).$ref === "string";
}

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
