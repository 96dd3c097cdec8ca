import assert from "node:assert/strict";
import { z } from "zod";
import { isAppError } from "../../shared/errors.ts";
import { checkSteps, describeProblems } from "../../shared/loop/plan_check.ts";
import { openEnvelopes } from "../../shared/planner/args_envelope.ts";
import { ChatPlanner } from "../../shared/planner/chat_planner.ts";
import { strictPlan } from "../../shared/planner/strict_plan_schema.ts";
import type { PlannedAction } from "../../shared/contracts.ts";
import { defineTool, type ToolDefinition } from "../../shared/tools/tool.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { ScriptedChatModel } from "../fakes/scripted_chat_model.ts";
import { buildLoop, loopRequest } from "../support/loop_fixture.ts";

/** Rooms of a trip: objects inside a list inside the args, deeper than a plan leaves room for. */
const TripArgs = z.object({
  title: z.string().min(1),
  rooms: z.array(z.object({ beds: z.int().min(1), view: z.enum(["sea", "garden"]).optional() })),
});
const NoteArgs = z.object({ text: z.string() });

function definitions(calls: unknown[] = []): ToolDefinition[] {
  return [
    defineTool({
      name: "plan_trip",
      description: "Plan a trip",
      argsSchema: TripArgs,
      run: ({ args }) => {
        calls.push(args);
        return { ok: true };
      },
    }),
    defineTool({ name: "note", description: "Keep a note", argsSchema: NoteArgs, run: () => ({}) }),
  ];
}

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  for (const tool of definitions()) tools.register(tool);
  return tools;
}

Deno.test("the deep tool is offered with its args as text, and only that one", () => {
  const plan = strictPlan(registry().getToolMetadataList());
  assert.deepEqual(plan?.enveloped, new Set(["plan_trip"]));
});

Deno.test("an envelope is opened for the tools offered as text only", () => {
  const plan = [
    { tool: "plan_trip", args: '{"title": "Coast", "rooms": []}' },
    { tool: "note", args: '{"text": "not opened: note is strict"}' },
    { tool: "plan_trip", args: { title: "already an object" } },
  ];
  const opened = openEnvelopes(plan, { enveloped: new Set(["plan_trip"]), raw: "" });
  assert.deepEqual(opened, [
    { tool: "plan_trip", args: { title: "Coast", rooms: [] } },
    plan[1],
    plan[2],
  ]);
});

Deno.test("args text that is not one JSON object fails as planner output, with an issue per step for the repair", () => {
  const plan = [
    { tool: "plan_trip", args: "{title: Coast}" },
    { tool: "plan_trip", args: "[1, 2]" },
    { tool: "plan_trip", args: "null" },
  ];
  assert.throws(
    () => openEnvelopes(plan, { enveloped: new Set(["plan_trip"]), raw: "the reply" }),
    (error) => {
      assert.ok(isAppError(error) && error.code === "PLANNER_INVALID_OUTPUT");
      const { issues, raw } = error.details as { issues: string[]; raw: string };
      assert.equal(raw, "the reply");
      assert.equal(issues.length, 3);
      assert.match(
        issues[0],
        /^\[0\]\.args: tool "plan_trip" takes its args as JSON text of one object; that text is not JSON/,
      );
      assert.match(issues[1], /^\[1\]\.args: .*that text is an array$/);
      assert.match(issues[2], /^\[2\]\.args: .*that text is null$/);
      return true;
    },
  );
});

Deno.test("args sent as text are checked with the same Zod issue paths as args sent as an object", async () => {
  const wrong = { title: "", rooms: [{ beds: 0, view: "mountain" }] };
  const tools = registry();
  const model = new ScriptedChatModel(
    JSON.stringify({ plan: [{ tool: "plan_trip", args: JSON.stringify(wrong) }] }),
  );
  const planned = await new ChatPlanner(model).plan({
    request: loopRequest("plan a trip"),
    context: {},
    tools: tools.getToolMetadataList(),
    signal: new AbortController().signal,
  });
  const problems = (plan: PlannedAction[]) =>
    describeProblems(checkSteps(plan, { registry: tools, offered: new Set(["plan_trip"]) }));
  const asText = problems(planned);
  assert.deepEqual(asText, problems([{ tool: "plan_trip", args: wrong }]));
  assert.deepEqual(asText.map((line) => line.split(":")[0]), [
    "[0].args.title",
    "[0].args.rooms[0].beds",
    "[0].args.rooms[0].view",
  ]);
});

Deno.test("in the loop, args text with a wrong value is repaired once and then runs", async () => {
  const calls: unknown[] = [];
  const trip = (beds: number) =>
    JSON.stringify({
      plan: [
        { tool: "plan_trip", args: JSON.stringify({ title: "Coast", rooms: [{ beds }] }) },
        { tool: "finalize_summary", args: { instructions: null } },
      ],
    });
  const model = new ScriptedChatModel(trip(0), trip(2));
  const { runner } = buildLoop({ planner: new ChatPlanner(model), tools: definitions(calls) });
  await runner.run(loopRequest("plan a trip to the coast"));
  assert.equal(model.requests.length, 2, "one plan, one repair");
  const repair = model.requests[1].messages.at(-1)?.content ?? "";
  assert.match(repair, /\[0\]\.args\.rooms\[0\]\.beds: .* \(tool "plan_trip"\)/);
  assert.deepEqual(calls, [{ title: "Coast", rooms: [{ beds: 2 }] }]);
});
