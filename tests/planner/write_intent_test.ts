/**
 * The offline planner plans a write only for an imperative that names what
 * the tool acts on; casual wording, questions and statements never write.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { HeuristicPlanner } from "../../shared/planner/heuristic_planner.ts";
import { createRefinementTools } from "../../shared/refinement/refinement_tools.ts";
import { createFinalizeSummaryTool } from "../../shared/tools/finalize_summary.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { MemoryRefinementStore } from "../fakes/memory_refinement_store.ts";
import { loopRequest } from "../support/loop_fixture.ts";

function registry(): ToolRegistry {
  const r = new ToolRegistry();
  r.register(createFinalizeSummaryTool());
  for (const tool of createRefinementTools({ store: new MemoryRefinementStore() })) {
    r.register(tool);
  }
  r.register({
    name: "archive_ticket",
    description: "Archive a support ticket so it leaves the open queue",
    argsSchema: z.object({ ticket_id: z.string().regex(/^T-\d+$/) }),
    run: () => "archived",
  });
  r.register({
    name: "convert_currency",
    description: "Convert an amount of money between currencies",
    argsSchema: z.object({ amount: z.number().min(0), to: z.enum(["EUR", "USD", "GBP"]) }),
    run: () => 1,
  });
  return r;
}

const tools = registry().getToolMetadataList();
const READS = new Set(["get_loop_status", "list_active_loops", "finalize_summary"]);

async function plan(message: string) {
  return await new HeuristicPlanner().plan({
    request: loopRequest(message),
    context: {},
    tools,
    signal: new AbortController().signal,
  });
}

Deno.test("casual wording never plans a write", async () => {
  for (
    const message of [
      "Can you help me plan my week?",
      "Can you help me plan my week",
      "I need a plan for the sprint",
      "my spec is nearly done, the build plan too",
      "is there a loop for build code?",
      "how do refinement loops work?",
      "we could start a spec loop later",
      "I started a plan loop yesterday",
      "don't start a new loop",
      "ticket T-12 should be archived eventually",
      "I converted 120 dollars to EUR last week",
      "what would a score of 90 mean for loop 0f0f0f0f?",
    ]
  ) {
    const writes = (await plan(message)).filter((step) => !READS.has(step.tool));
    assert.deepEqual(writes, [], message);
  }
});

Deno.test("an imperative with the tool's object plans the write, in many wordings", async () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ["Start a spec refinement loop", "initialize_refinement_loop", { loop_type: "spec" }],
    ["kick off a build code loop please", "initialize_refinement_loop", {
      loop_type: "build_code",
    }],
    ["Could you open a new plan loop?", "initialize_refinement_loop", { loop_type: "plan" }],
    ["Record a score of 90 for loop 7bab91ad", "decide_loop_next_action", {
      loop_id: "7bab91ad",
      current_score: 90,
    }],
    ["log 55 as the score of loop 0f0f0f0f", "decide_loop_next_action", {
      loop_id: "0f0f0f0f",
      current_score: 55,
    }],
    ["please archive ticket T-12", "archive_ticket", { ticket_id: "T-12" }],
    // The tool's own verb: a stated arg is what it acts on.
    ["convert 120 dollars to eur", "convert_currency", { amount: 120, to: "EUR" }],
  ];
  for (const [message, tool, args] of cases) {
    assert.deepEqual((await plan(message))[0], { tool, args }, message);
  }
});

Deno.test("a write asked for plans no listing besides it", async () => {
  for (const message of ["Record a score of 90 for loop 7bab91ad", "score loop 1234abcd at 70"]) {
    const steps = (await plan(message)).map((step) => step.tool);
    assert.deepEqual(steps, ["decide_loop_next_action", "finalize_summary"], message);
  }
});

Deno.test("a write asked for without its required detail is not guessed: the reply asks for it", async () => {
  const steps = await plan("Start a refinement loop");
  assert.deepEqual(steps.map((step) => step.tool), ["finalize_summary"]);
  assert.match(
    String(steps[0].args.instructions),
    /^To use initialize_refinement_loop \(start a quality-driven refinement loop .*\), I need the loop type \(one of plan, spec, build_plan or build_code\): say it in your message\.$/,
  );
});

Deno.test("two clauses plan two writes, the second using the first one's output", async () => {
  assert.deepEqual(await plan("Open a build plan loop, then record 64 as its score"), [
    { tool: "initialize_refinement_loop", args: { loop_type: "build_plan" } },
    {
      tool: "decide_loop_next_action",
      args: { loop_id: { $ref: "/steps/0/output/id" }, current_score: 64 },
    },
    { tool: "finalize_summary", args: {} },
  ]);
});
