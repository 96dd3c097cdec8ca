import assert from "node:assert/strict";
import { z } from "zod";
import { ChatPlanner } from "../../shared/planner/chat_planner.ts";
import { planResponseSchema } from "../../shared/planner/plan_prompt.ts";
import { ENVELOPE_DESCRIPTION } from "../../shared/planner/args_envelope.ts";
import { strictPlan, strictPlanSchema } from "../../shared/planner/strict_plan_schema.ts";
import type { PlanInput, PlannerTool } from "../../shared/ports.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { ScriptedChatModel } from "../fakes/scripted_chat_model.ts";
import { strictSchemaProblem } from "../fakes/openai_strict_schema.ts";
import { builtInPlannerTools } from "../support/built_in_tools.ts";

/** The planner's view of Zod-defined tools, as the registry gives it. */
function plannerTools(...schemas: [string, z.ZodObject][]): PlannerTool[] {
  const registry = new ToolRegistry();
  for (const [name, argsSchema] of schemas) {
    registry.register(
      defineTool({ name, description: `Tool ${name}`, argsSchema, run: () => ({}) }),
    );
  }
  return registry.getToolMetadataList();
}

/** Fits strict mode, each keyword strict mode drops or keeps once. */
const Stay = z.object({
  city: z.string().min(1).max(80),
  nights: z.int().min(1).max(30).default(1),
  guests: z.array(z.string()).max(4).optional(),
  note: z.string().nullable().optional(),
  email: z.email().optional(),
  when: z.enum(["today", "tomorrow"]),
});

/** A list of objects in the args: one level deeper than a plan leaves room for. */
const Booking = Stay.extend({
  guests: z.array(z.object({ name: z.string(), age: z.int().optional() })).max(4).optional(),
});

/** A schema or response read in a test. */
// deno-lint-ignore no-explicit-any
type Json = any;

/** The steps of a plan schema, one per tool. */
function stepsOf(schema: Json): Json[] {
  const items = schema.properties.plan.items;
  return items.anyOf ?? [items];
}

/** The args schema offered for `tool`. */
function argsOf(schema: Json, tool: string): Json {
  return stepsOf(schema).find((s) => s.properties.tool.enum[0] === tool).properties.args;
}

Deno.test("the strict plan schema offers each tool with its own args and passes OpenAI's strict-mode rules", () => {
  const tools = plannerTools(["book_stay", Stay], ["finalize", z.object({})]);
  const plan = strictPlan(tools);
  assert.ok(plan);
  assert.equal(strictSchemaProblem(plan.schema), undefined);
  assert.deepEqual(plan.enveloped, new Set());
  assert.deepEqual(stepsOf(plan.schema).map((s) => s.properties.tool.enum), [
    ["book_stay"],
    ["finalize"],
  ]);
  const args = argsOf(plan.schema, "book_stay");
  assert.deepEqual(args.required, ["city", "nights", "guests", "note", "email", "when"]);
  assert.equal(args.additionalProperties, false);
  // Dropped: what strict mode does not take; kept: what it does.
  assert.deepEqual(args.properties.city.anyOf[0], { type: "string" });
  assert.deepEqual(args.properties.nights.anyOf.at(-1), { type: "null" }, "optional: nullable");
  assert.equal(args.properties.when.anyOf.length, 2, "required: a value or a step reference");
  assert.deepEqual(args.properties.when.anyOf[1], { $ref: "#/$defs/step_ref" });
  assert.equal(args.properties.email.anyOf[0].format, "email");
});

Deno.test("every tool the project registers is offered in a plan schema the strict fake accepts", () => {
  const tools = builtInPlannerTools();
  const plan = strictPlan(tools);
  assert.ok(plan);
  assert.equal(strictSchemaProblem(plan.schema), undefined);
  // remember's memory patch (an object of lists) nests past what the plan leaves room for.
  assert.deepEqual([...plan.enveloped], ["remember"]);
  assert.equal(argsOf(plan.schema, "remember").type, "string");
  for (const tool of tools.filter((t) => t.name !== "remember")) {
    assert.equal(argsOf(plan.schema, tool.name).type, "object", tool.name);
  }
});

Deno.test("a tool whose args nest too deep gets its args as JSON text; the other tools stay strict", () => {
  const plan = strictPlan(plannerTools(["book_hotel", Booking], ["book_stay", Stay]));
  assert.ok(plan);
  assert.equal(strictSchemaProblem(plan.schema), undefined);
  assert.deepEqual(plan.enveloped, new Set(["book_hotel"]));
  assert.deepEqual(argsOf(plan.schema, "book_hotel"), {
    type: "string",
    description: ENVELOPE_DESCRIPTION,
  });
  assert.equal(argsOf(plan.schema, "book_stay").type, "object");

  // Alone, a tool has one level more (no anyOf of tools): the same depth rule decides.
  let deep: z.ZodObject = z.object({ leaf: z.string() });
  for (let i = 0; i < 2; i++) deep = z.object({ inner: deep });
  assert.deepEqual(strictPlan(plannerTools(["deep", deep]))?.enveloped, new Set(["deep"]));
  const fits = strictPlan(plannerTools(["deep", deep.shape.inner as z.ZodObject]));
  assert.deepEqual(fits?.enveloped, new Set());
  assert.equal(strictSchemaProblem(fits!.schema), undefined);
});

Deno.test("args strict mode cannot express go as JSON text instead of making the whole plan loose", () => {
  const remote: PlannerTool = {
    name: "remote",
    description: "",
    argsSchema: { type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: {} } },
  };
  const odd: [string, z.ZodObject][] = [
    ["labels", z.object({ labels: z.record(z.string(), z.string()) })],
    ["payload", z.object({ payload: z.unknown() })],
    ["pair", z.object({ pair: z.tuple([z.string(), z.number()]) })],
    ["loose", z.looseObject({ nested: z.object({ x: z.string() }).catchall(z.number()) })],
  ];
  const plan = strictPlan([...plannerTools(...odd, ["stay", Stay]), remote]);
  assert.ok(plan);
  assert.equal(strictSchemaProblem(plan.schema), undefined);
  assert.deepEqual(plan.enveloped, new Set(["labels", "payload", "pair", "loose", "remote"]));
  assert.equal(argsOf(plan.schema, "stay").type, "object");
});

/** `count` tools `<prefix>_<i>`, each with `width` string properties named `<name>_<j>`. */
function wideTools(prefix: string, count: number, width: number, name = "p"): PlannerTool[] {
  const shape = Object.fromEntries(
    Array.from({ length: width }, (_, j) => [`${name}_${j}`, z.string()]),
  );
  return plannerTools(
    ...Array.from({ length: count }, (_, i) =>
      [`${prefix}_${i}`, z.object(shape)] as [
        string,
        z.ZodObject,
      ]),
  );
}

Deno.test("past the plan's totals, the largest tools go to JSON text first, and no more than needed", () => {
  // Properties: 40 tools of 100 and one of 1,500 are past 5,000; the large one alone is enough.
  const plan = strictPlan([...wideTools("small", 40, 100), ...wideTools("large", 1, 1_500)]);
  assert.ok(plan);
  assert.equal(strictSchemaProblem(plan.schema), undefined);
  assert.deepEqual(plan.enveloped, new Set(["large_0"]));

  // Names: property names of 1,000 characters, 130 of them, are past 120,000 characters.
  const long = "n".repeat(996);
  const names = strictPlan([...wideTools("few", 1, 20, long), ...wideTools("many", 1, 110, long)]);
  assert.ok(names);
  assert.equal(strictSchemaProblem(names.schema), undefined);
  assert.deepEqual(names.enveloped, new Set(["many_0"]));

  // Enum values: three tools of 400 values each are past 1,000.
  const enums = [200, 400, 401].map((n, i): PlannerTool => ({
    name: `pick_${i}`,
    description: "",
    argsSchema: {
      type: "object",
      properties: { v: { type: "integer", enum: Array.from({ length: n }, (_, k) => k) } },
      required: ["v"],
    },
  }));
  const picked = strictPlan(enums);
  assert.ok(picked);
  assert.equal(strictSchemaProblem(picked.schema), undefined);
  assert.deepEqual(picked.enveloped, new Set(["pick_2"]));
});

Deno.test("a string enum of more than 250 values and 15,000 characters sends only its tool as JSON text", () => {
  const values = Array.from(
    { length: 300 },
    (_, i) => `${String(i).padStart(3, "0")}${"v".repeat(50)}`,
  );
  const tools = [
    ...plannerTools(["stay", Stay]),
    {
      name: "choose",
      description: "",
      argsSchema: { type: "object", properties: { c: { enum: values } }, required: ["c"] },
    },
  ];
  const plan = strictPlan(tools);
  assert.ok(plan);
  assert.equal(strictSchemaProblem(plan.schema), undefined);
  assert.deepEqual(plan.enveloped, new Set(["choose"]));
});

Deno.test("no strict schema only when even with every args as text the tools are past the limits", () => {
  // Each tool's name is one enum value: 1,001 tools are past 1,000 however their args go.
  const many = Array.from({ length: 1_001 }, (_, i): PlannerTool => ({
    name: `t${i}`,
    description: "",
  }));
  assert.equal(strictPlan(many), undefined);
  const fits = strictPlan(many.slice(0, 990));
  assert.ok(fits);
  assert.equal(strictSchemaProblem(fits.schema), undefined);
});

function planInput(tools: PlannerTool[]): PlanInput {
  return {
    request: { mode: "general", sessionId: "s", messages: [{ role: "user", content: "hi" }] },
    context: {},
    tools,
    signal: new AbortController().signal,
  };
}

Deno.test("the chat planner asks for the strict schema when the tools fit, and cleans the plan", async () => {
  const model = new ScriptedChatModel(
    JSON.stringify({
      plan: [{ tool: "book_stay", args: { city: "Porto", nights: null, when: "today" } }],
    }),
  );
  const tools = plannerTools(["book_stay", Stay]);
  const plan = await new ChatPlanner(model).plan(planInput(tools));
  assert.equal(model.requests[0].jsonSchema?.strict, true);
  assert.deepEqual(model.requests[0].jsonSchema?.schema, strictPlanSchema(tools));
  assert.deepEqual(plan, [{ tool: "book_stay", args: { city: "Porto", when: "today" } }]);
});

Deno.test("the chat planner opens the JSON text of a tool offered with its args as text", async () => {
  const labels = { plan: [{ tool: "tag", args: JSON.stringify({ labels: { a: "b" } }) }] };
  const model = new ScriptedChatModel(JSON.stringify(labels));
  const tools = plannerTools(["tag", z.object({ labels: z.record(z.string(), z.string()) })]);
  const plan = await new ChatPlanner(model).plan(planInput(tools));
  assert.equal(model.requests[0].jsonSchema?.strict, true);
  assert.deepEqual(plan, [{ tool: "tag", args: { labels: { a: "b" } } }]);
});

Deno.test("the chat planner falls back to the loose plan schema when even text args are past the limits", async () => {
  const model = new ScriptedChatModel('[{"tool": "t7", "args": {}}]');
  const tools = Array.from({ length: 1_001 }, (_, i): PlannerTool => ({
    name: `t${i}`,
    description: "",
  }));
  const plan = await new ChatPlanner(model).plan(planInput(tools));
  assert.equal(model.requests[0].jsonSchema?.strict, undefined);
  assert.deepEqual(model.requests[0].jsonSchema?.schema, planResponseSchema(tools));
  assert.deepEqual(plan, [{ tool: "t7", args: {} }]);
});
