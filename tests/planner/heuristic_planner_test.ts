import assert from "node:assert/strict";
import { z } from "zod";
import shippedTools from "../../functions/mcp-loop/tools.ts";
import { HeuristicPlanner } from "../../shared/planner/heuristic_planner.ts";
import { createRefinementTools } from "../../shared/refinement/refinement_tools.ts";
import { createFinalizeSummaryTool } from "../../shared/tools/finalize_summary.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { MemoryRefinementStore } from "../fakes/memory_refinement_store.ts";
import { loopRequest } from "../support/loop_fixture.ts";

function registry() {
  const r = new ToolRegistry();
  r.register(createFinalizeSummaryTool());
  r.register({
    name: "get_weather",
    description: "Current weather forecast for a city",
    argsSchema: z.object({ city: z.string() }),
    annotations: { readOnlyHint: true },
    run: () => "sunny",
  });
  r.register({
    name: "convert_currency",
    description: "Convert an amount of money between currencies",
    argsSchema: z.object({
      amount: z.number().min(0),
      to: z.enum(["EUR", "USD", "GBP"]),
    }),
    run: () => 1,
  });
  r.register({
    name: "list_tickets",
    description: "List the open support tickets",
    argsSchema: z.object({}),
    annotations: { readOnlyHint: true },
    run: () => [],
  });
  return r;
}

async function plan(message: string, context: Record<string, unknown> = {}) {
  const r = registry();
  return await new HeuristicPlanner().plan({
    request: loopRequest(message),
    context,
    tools: r.getToolMetadataList(),
    signal: new AbortController().signal,
  });
}

Deno.test("the best matching tool is chosen, with args filled from the message, then finalize_summary", async () => {
  assert.deepEqual(await plan("please convert 120 dollars to eur"), [
    { tool: "convert_currency", args: { amount: 120, to: "EUR" } },
    { tool: "finalize_summary", args: {} },
  ]);
});

Deno.test("a required number is the first in range the message holds, past one that is not", async () => {
  assert.deepEqual((await plan("convert -20, no, 120 dollars to eur"))[0], {
    tool: "convert_currency",
    args: { amount: 120, to: "EUR" },
  });
});

Deno.test("args are filled from the context by name", async () => {
  assert.deepEqual(await plan("what is the weather forecast", { city: "Lisbon" }), [
    { tool: "get_weather", args: { city: "Lisbon" } },
    { tool: "finalize_summary", args: {} },
  ]);
});

Deno.test("a tool whose required args are unknown is skipped, and the reply says what it needs", async () => {
  const steps = await plan("what is the weather forecast");
  assert.deepEqual(steps.map((step) => step.tool), ["finalize_summary"]);
  assert.equal(
    steps[0].args.instructions,
    "To use get_weather (current weather forecast for a city), I need the city: say it in your message.",
  );
});

Deno.test("a message unrelated to every tool plans only the reply, which says what the tools can do", async () => {
  const steps = await plan("tell me a joke about penguins");
  assert.deepEqual(steps.map((step) => step.tool), ["finalize_summary"]);
  assert.equal(
    steps[0].args.instructions,
    "None of my tools does that, so I did nothing. What I can do:\n" +
      "- current weather forecast for a city (get_weather)\n" +
      "- convert an amount of money between currencies (convert_currency)\n" +
      "- list the open support tickets (list_tickets)",
  );
});

Deno.test("a tool without args is chosen when the message asks for it", async () => {
  assert.deepEqual((await plan("show me the open support tickets")).map((s) => s.tool), [
    "list_tickets",
    "finalize_summary",
  ]);
});

Deno.test("without finalize_summary offered the plan has no summary step", async () => {
  const r = registry();
  const steps = await new HeuristicPlanner().plan({
    request: loopRequest("show me the open support tickets"),
    context: {},
    tools: r.getToolMetadataList().filter((t) => t.name !== "finalize_summary"),
    signal: new AbortController().signal,
  });
  assert.deepEqual(steps.map((s) => s.tool), ["list_tickets"]);
});

Deno.test("patterns that could backtrack catastrophically are not used", async () => {
  const { safeRegExp } = await import("../../shared/planner/arg_filler.ts");
  assert.equal(safeRegExp("^(a+)+$"), undefined);
  assert.equal(safeRegExp("^(\\w*)*x$"), undefined);
  assert.equal(safeRegExp("^(a)\\1$"), undefined);
  assert.ok(safeRegExp("^[0-9a-f]{8}$"));
  assert.ok(safeRegExp("^(ab|cd)$"));
});

Deno.test("an arg only an earlier tool's output has becomes a step reference, the producer first", async () => {
  const r = new ToolRegistry();
  r.register(createFinalizeSummaryTool());
  for (const tool of createRefinementTools({ store: new MemoryRefinementStore() })) {
    r.register(tool);
  }
  const plan = await new HeuristicPlanner().plan({
    request: loopRequest("Start a spec refinement loop and record a score of 72"),
    context: {},
    tools: r.getToolMetadataList(),
    signal: new AbortController().signal,
  });
  assert.deepEqual(plan, [
    { tool: "initialize_refinement_loop", args: { loop_type: "spec" } },
    {
      tool: "decide_loop_next_action",
      args: { loop_id: { $ref: "/steps/0/output/id" }, current_score: 72 },
    },
    { tool: "finalize_summary", args: {} },
  ]);
});

Deno.test("in a later round the heuristic planner asks for the reply once, then has nothing to add", async () => {
  const planner = new HeuristicPlanner();
  const base = {
    request: loopRequest("weather in Lisbon"),
    context: {},
    signal: new AbortController().signal,
    round: 2,
  };
  const step = { tool: "get_weather", input: {}, output: "sunny", success: true, durationMs: 1 };
  const tools = registry().getToolMetadataList();
  assert.deepEqual(await planner.plan({ ...base, tools, results: [step] }), [
    { tool: "finalize_summary", args: {} },
  ]);
  const replied = [step, { ...step, tool: "finalize_summary" }];
  assert.deepEqual(await planner.plan({ ...base, tools, results: replied }), []);
  const noFinalize = tools.filter((tool) => tool.name !== "finalize_summary");
  assert.deepEqual(await planner.plan({ ...base, tools: noFinalize, results: [step] }), []);
});

function refinementRegistry(): ToolRegistry {
  const r = new ToolRegistry();
  r.register(createFinalizeSummaryTool());
  for (const tool of createRefinementTools({ store: new MemoryRefinementStore() })) {
    r.register(tool);
  }
  return r;
}

Deno.test("a write the message does not ask for is never planned, even when an earlier step could supply its args", async () => {
  const plan = await new HeuristicPlanner().plan({
    request: loopRequest("record a score of 90 for loop f2315a12"),
    context: {},
    tools: refinementRegistry().getToolMetadataList(),
    signal: new AbortController().signal,
  });
  // Reads may join (they change nothing); the only write is the one asked for.
  assert.deepEqual(plan[0], {
    tool: "decide_loop_next_action",
    args: { loop_id: "f2315a12", current_score: 90 },
  });
  assert.ok(!plan.some((step) => step.tool === "initialize_refinement_loop"));
});

Deno.test("a write whose args come only from the context is not planned; a read is", async () => {
  const r = new ToolRegistry();
  r.register({
    name: "delete_ticket",
    description: "Delete a support ticket",
    argsSchema: z.object({ ticket_id: z.string() }),
    run: () => "deleted",
  });
  r.register({
    name: "show_ticket",
    description: "Show a support ticket",
    argsSchema: z.object({ ticket_id: z.string() }),
    annotations: { readOnlyHint: true },
    run: () => "ticket",
  });
  const plan = await new HeuristicPlanner().plan({
    request: loopRequest("the support ticket"),
    context: { ticket_id: "T-1" },
    tools: r.getToolMetadataList(),
    signal: new AbortController().signal,
  });
  assert.deepEqual(plan, [{ tool: "show_ticket", args: { ticket_id: "T-1" } }]);
});

Deno.test("an optional arg the message states is filled when the tool's schema accepts it and refuses other words", async () => {
  const r = new ToolRegistry();
  const zones = ["Asia/Tokyo", "America/New_York", "UTC"];
  r.register({
    name: "get_current_time",
    description: "Get the current time in a time zone",
    argsSchema: z.object({
      time_zone: z.string().default("UTC").refine((zone) =>
        zones.includes(zone) || zones.some((known) => known.endsWith(zone.replaceAll(" ", "_")))
      ),
      note: z.string().optional(),
    }),
    annotations: { readOnlyHint: true },
    run: () => "now",
  });
  const planFor = (message: string) =>
    new HeuristicPlanner().plan({
      request: loopRequest(message),
      context: {},
      tools: r.getToolMetadataList(),
      signal: new AbortController().signal,
    });
  // The free-text `note` accepts any word, so nothing from the message goes into it.
  assert.deepEqual(await planFor("What time is it in Asia/Tokyo?"), [
    { tool: "get_current_time", args: { time_zone: "Asia/Tokyo" } },
  ]);
  assert.deepEqual(await planFor("what time is it in New York"), [
    { tool: "get_current_time", args: { time_zone: "New York" } },
  ]);
  assert.deepEqual(await planFor("what time is it"), [{ tool: "get_current_time", args: {} }]);
});

Deno.test("an optional number is filled only when said with its arg's name, in range", async () => {
  const r = new ToolRegistry();
  r.register({
    name: "list_recipes",
    description: "List the saved recipes, newest first",
    argsSchema: z.object({
      limit: z.int().min(1).max(50).default(10),
      maxMinutes: z.number().positive().optional(),
    }),
    annotations: { readOnlyHint: true },
    run: () => [],
  });
  const argsFor = async (message: string) =>
    (await new HeuristicPlanner().plan({
      request: loopRequest(message),
      context: {},
      tools: r.getToolMetadataList(),
      signal: new AbortController().signal,
    }))[0].args;
  assert.deepEqual(await argsFor("list my recipes, limit 4"), { limit: 4 });
  assert.deepEqual(await argsFor("list recipes with a limit of 12 and max minutes 25"), {
    limit: 12,
    maxMinutes: 25,
  });
  // A number said otherwise, or out of range, leaves the default.
  assert.deepEqual(await argsFor("list my 3 newest recipes"), {});
  assert.deepEqual(await argsFor("list recipes, limit 500"), {});
  assert.deepEqual(await argsFor("list recipes, limit 2.5"), {});
});

Deno.test("a read that cannot run does not crowd out a lesser match that can", async () => {
  const planFor = (message: string) =>
    new HeuristicPlanner().plan({
      request: loopRequest(message),
      context: {},
      tools: refinementRegistry().getToolMetadataList(),
      signal: new AbortController().signal,
    });
  // get_loop_status matches best but needs an id; the listing answers instead.
  assert.deepEqual((await planFor("how are my loops doing, status-wise?")).map((s) => s.tool), [
    "list_active_loops",
    "finalize_summary",
  ]);
  assert.deepEqual((await planFor("what's the status of loop c0ffee12?"))[0], {
    tool: "get_loop_status",
    args: { loop_id: "c0ffee12" },
  });
});

Deno.test("the memory tools are planned by their own grammar only, never by matching words", async () => {
  const r = refinementRegistry();
  r.register({
    name: "forget_session",
    description: "Delete a conversation of the user's for good",
    argsSchema: z.object({ session_id: z.string().optional() }),
    run: () => "deleted",
  });
  for (const message of ["Delete the conversation about Tokyo", "remove the chat from last week"]) {
    const steps = await new HeuristicPlanner().plan({
      request: loopRequest(message),
      context: {},
      tools: r.getToolMetadataList(),
      signal: new AbortController().signal,
    });
    assert.ok(!steps.some((step) => step.tool === "forget_session"), message);
  }
});

Deno.test("a message of thousands of places, or of things after one verb, is read once, not once per part", async () => {
  // Each took from 40 s to over a minute when every comma or "and" re-read the rest of the
  // message; the test has no clock: a return from each is what it checks.
  const r = registry();
  for (const tool of shippedTools) r.register(tool);
  for (
    const message of [
      `time in ${"Oslo, Lima, ".repeat(2_600)}`,
      `show me ${"my tickets and the time in Tokyo and ".repeat(800)}`,
      `remember that ${"I like tea, ".repeat(2_600)}`,
    ]
  ) {
    const steps = await new HeuristicPlanner().plan({
      request: loopRequest(message),
      context: {},
      tools: r.getToolMetadataList(),
      signal: new AbortController().signal,
    });
    assert.ok(steps.length <= 5, message.slice(0, 40));
  }
});

Deno.test("long runs of what the grammar reads (spaces, 'there', sentences) are planned in one pass", async () => {
  // Each of these took from seconds to minutes when a pattern rescanned the text before each of
  // its parts; the test has no clock: a return from each is what it checks.
  const earlier = { recentMessages: [] };
  for (
    const message of [
      "there'".repeat(4_000),
      "is there ".repeat(3_000),
      `and in Lima?${" ".repeat(30_000)}`,
      `${" ".repeat(30_000)}what time is it in Lima?`,
      `${"\n".repeat(30_000)}remember that I like tea`,
      `thanks${" ".repeat(30_000)}!`,
      `what do you know about me ${"now ".repeat(5_000)}`,
    ]
  ) {
    const steps = await plan(message, earlier);
    assert.equal(steps.at(-1)?.tool, "finalize_summary");
  }
});
