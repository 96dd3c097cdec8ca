/**
 * Property tests: whatever tools the planner is offered, the strict plan
 * schema it sends is one the strict fake (OpenAI's documented rules and
 * limits, tests/fakes/openai_strict_schema.ts) accepts, with every tool
 * offered, strictly or with its args as text. The tools are generated two
 * ways: JSON Schemas as a remote MCP server may publish them (hostile: deep,
 * around the depth a plan leaves room for, wide, long names, large enums,
 * keywords strict mode does not take, shapes it cannot express) and Zod schemas as an application writes them; and the real
 * MCP servers' tools of the tool-search catalog.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { z } from "zod";
import { strictPlan } from "../../shared/planner/strict_plan_schema.ts";
import type { PlannerTool } from "../../shared/ports.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { strictSchemaProblem } from "../fakes/openai_strict_schema.ts";
import { catalogTools, registerCatalog } from "../support/tool_catalog.ts";

type Json = Record<string, unknown>;

/** Property names, including ones that are keywords or special in JavaScript. */
const propertyName = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 300 }),
  fc.constantFrom("$ref", "type", "properties", "description", "__proto__", "constructor", "anyOf"),
);

const stringEnum = fc.oneof(
  fc.uniqueArray(fc.string({ maxLength: 20 }), { minLength: 1, maxLength: 12 }),
  // Past 250 values, and sometimes past 15,000 characters.
  fc.integer({ min: 251, max: 320 }).chain((n) =>
    fc.integer({ min: 10, max: 70 }).map((width) =>
      Array.from({ length: n }, (_, i) => `${i}`.padEnd(width, "x"))
    )
  ),
);

/** Scalars strict mode can take, once their narrowing keywords are dropped. */
const plainScalar: fc.Arbitrary<Json> = fc.oneof(
  fc.record({
    type: fc.constant("string"),
    minLength: fc.nat(5),
    maxLength: fc.integer({ min: 5, max: 50 }),
    format: fc.constantFrom("email", "uuid", "date-time", "uri", "binary"),
    pattern: fc.constantFrom("^[a-z]+$", "^(?!x).*$", "(a)\\1", "^\\d{3}$"),
    description: fc.string({ maxLength: 40 }),
  }, { requiredKeys: ["type"] }),
  fc.record({
    type: fc.constantFrom("number", "integer"),
    minimum: fc.integer(),
    exclusiveMaximum: fc.integer(),
    multipleOf: fc.integer({ min: 1, max: 10 }),
    default: fc.integer(),
  }, { requiredKeys: ["type"] }),
  fc.constantFrom<Json>({ type: "boolean" }, { type: "null" }, { not: { type: "string" } }),
  stringEnum.map((values): Json => ({ type: "string", enum: values })),
  fc.constantFrom<Json>(
    { enum: ["a", 1, true, null] },
    { const: "fixed" },
    { type: ["string", "null"] },
    { type: ["integer", "string", "boolean"], enum: [1, "one", false] },
  ),
);

/** Shapes strict mode cannot express: an any-value, a tuple, a map, a reference of the tool's own. */
const oddShape = fc.constantFrom<Json>(
  {},
  { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] },
  { type: "object", additionalProperties: { type: "string" } },
  { $ref: "#/$defs/x" },
);

const scalar = fc.oneof(
  { arbitrary: plainScalar, weight: 12 },
  { arbitrary: oddShape, weight: 1 },
);

/** JSON Schemas up to about 12 levels deep. */
const { node } = fc.letrec<{ node: Json; object: Json }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    tie("object"),
    fc.record({
      type: fc.constant("array"),
      items: tie("node"),
      maxItems: fc.integer({ min: 1, max: 9 }),
      uniqueItems: fc.boolean(),
    }, { requiredKeys: ["type", "items"] }),
    fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((anyOf): Json => ({ anyOf })),
    fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((oneOf): Json => ({ oneOf })),
    tie("node").map((inner): Json => ({ allOf: [inner] })),
  ),
  object: fc.record({
    type: fc.constant("object"),
    properties: fc.dictionary(propertyName, tie("node"), { maxKeys: 8 }),
    required: fc.array(propertyName, { maxLength: 3 }),
    additionalProperties: fc.constantFrom(false, true, {}),
  }, { requiredKeys: ["type", "properties"] }),
}));

/** Wide args: up to 120 properties at the top. */
const wideArgs = fc.dictionary(propertyName, scalar, { minKeys: 40, maxKeys: 120 })
  .map((properties): Json => ({ type: "object", properties }));

/** A chain of objects, lists and unions around a scalar: around the depth a plan leaves room for. */
const deepArgs = fc.tuple(
  fc.array(fc.constantFrom("object", "array", "anyOf", "optional"), { minLength: 1, maxLength: 8 }),
  plainScalar,
  propertyName,
).map(([wrappers, leaf, name]) => {
  let schema = leaf;
  for (const wrapper of wrappers) {
    if (wrapper === "object") {
      schema = { type: "object", properties: { [name]: schema }, required: [name] };
    } else if (wrapper === "array") schema = { type: "array", items: schema };
    else if (wrapper === "anyOf") schema = { anyOf: [schema, { type: "boolean" }] };
    else schema = { type: "object", properties: { [name]: schema } };
  }
  return schema;
});

const toolName = fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/);

const jsonTools = fc.uniqueArray(
  fc.record({
    name: toolName,
    argsSchema: fc.oneof(
      { arbitrary: node, weight: 2 },
      { arbitrary: deepArgs, weight: 3 },
      { arbitrary: wideArgs, weight: 1 },
    ).map((schema): Json =>
      schema.type === "object" ? schema : { type: "object", properties: { value: schema } }
    ),
    remote: fc.option(fc.constant("server"), { nil: undefined }),
  }),
  { minLength: 1, maxLength: 12, selector: (tool) => tool.name },
).map((tools) => tools.map((tool): PlannerTool => ({ ...tool, description: "" })));

/** How many tools were offered strictly and with their args as text, over a whole property. */
interface Seen {
  strict: number;
  enveloped: number;
}

/** Checks the plan schema for `tools`: the fake accepts it and every tool is in it, once, in order. */
function checkPlan(tools: readonly PlannerTool[], seen: Seen): void {
  const plan = strictPlan(tools);
  assert.ok(plan, "a dozen tools always fit, with their args as text if need be");
  assert.equal(strictSchemaProblem(plan.schema), undefined);
  const items = (plan.schema.properties as Json).plan as { items: Json };
  const steps = (items.items.anyOf ?? [items.items]) as { properties: Json }[];
  assert.deepEqual(
    steps.map((step) => (step.properties.tool as { enum: string[] }).enum),
    tools.map((tool) => [tool.name]),
  );
  steps.forEach((step, i) => {
    const args = step.properties.args as Json;
    const enveloped = plan.enveloped.has(tools[i].name);
    assert.equal(args.type, enveloped ? "string" : "object");
    const declared = tools[i].argsSchema?.properties;
    if (!enveloped && declared && typeof declared === "object") {
      assert.deepEqual(Object.keys(args.properties as Json), Object.keys(declared));
    }
    if (enveloped) seen.enveloped++;
    else seen.strict++;
  });
}

Deno.test("the strict fake accepts the plan schema for any set of published JSON Schemas", () => {
  const seen = { strict: 0, enveloped: 0 };
  fc.assert(fc.property(jsonTools, (tools) => checkPlan(tools, seen)), { numRuns: 150 });
  // Both kinds were exercised: the generator is not all easy or all hopeless.
  assert.ok(seen.strict > 100 && seen.enveloped > 100, JSON.stringify(seen));
});

/** Zod schemas as an application writes them, up to 4 levels of objects and lists. */
const { zod } = fc.letrec<{ zod: z.ZodType }>((tie) => ({
  zod: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom<z.ZodType>(
      z.string().min(1).max(40),
      z.email(),
      z.int().min(0).max(100),
      z.number().positive(),
      z.boolean(),
      z.enum(["low", "high"]),
      z.literal("only"),
      z.string().regex(/^[A-Z]{3}$/),
      z.record(z.string(), z.number()),
      z.unknown(),
      z.tuple([z.string(), z.int()]),
    ),
    tie("zod").map((inner) => inner.optional()),
    tie("zod").map((inner) => inner.nullable()),
    tie("zod").map((inner) => z.array(inner).max(5)),
    fc.tuple(tie("zod"), tie("zod")).map(([a, b]) => z.union([a, b])),
    fc.dictionary(fc.stringMatching(/^[a-z_]{1,10}$/), tie("zod"), { minKeys: 1, maxKeys: 5 })
      .map((shape) => z.object(shape)),
  ),
}));

const zodTools = fc.uniqueArray(
  fc.record({
    name: toolName,
    shape: fc.dictionary(fc.stringMatching(/^[a-z_]{1,10}$/), zod, { maxKeys: 6 }),
  }),
  { minLength: 1, maxLength: 8, selector: (tool) => tool.name },
).map((tools) => {
  const registry = new ToolRegistry();
  for (const { name, shape } of tools) {
    registry.register(
      defineTool({ name, description: "", argsSchema: z.object(shape), run: () => ({}) }),
    );
  }
  return registry.getToolMetadataList();
});

Deno.test("the strict fake accepts the plan schema for any set of Zod-defined tools", () => {
  const seen = { strict: 0, enveloped: 0 };
  fc.assert(fc.property(zodTools, (tools) => checkPlan(tools, seen)), { numRuns: 100 });
  assert.ok(seen.strict > 50 && seen.enveloped > 50, JSON.stringify(seen));
});

Deno.test("the strict fake accepts the plan schema for real MCP servers' tools, together or in any subset", () => {
  const catalog = registerCatalog(catalogTools()).getToolMetadataList();
  const seen = { strict: 0, enveloped: 0 };
  checkPlan(catalog, seen);
  // Most of them are offered strictly.
  assert.ok(seen.strict > 200, JSON.stringify(seen));
  fc.assert(
    fc.property(
      fc.subarray(catalog, { minLength: 1, maxLength: 30 }),
      (tools) => checkPlan(tools, seen),
    ),
    { numRuns: 50 },
  );
});
