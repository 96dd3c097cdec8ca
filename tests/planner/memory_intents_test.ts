import assert from "node:assert/strict";
import { HeuristicPlanner } from "../../shared/planner/heuristic_planner.ts";
import { memoryIntent } from "../../shared/planner/memory_intents.ts";
import type { PlannerTool } from "../../shared/ports.ts";
import { loopRequest } from "../support/loop_fixture.ts";

const tool = (name: string): PlannerTool => ({ name, description: name, argsSchema: {} });
const ALL = ["remember", "forget", "forget_session", "finalize_summary"].map(tool);

Deno.test("'remember that …' plans remember with the fact, 'forget …' plans forget with what", () => {
  assert.deepEqual(memoryIntent("Remember that my favourite colour is teal.", ALL), {
    tool: "remember",
    args: { fact: "my favourite colour is teal" },
  });
  assert.deepEqual(memoryIntent("please remember: I am vegetarian!", ALL), {
    tool: "remember",
    args: { fact: "I am vegetarian" },
  });
  assert.deepEqual(memoryIntent("Forget that my favourite colour is teal", ALL), {
    tool: "forget",
    args: { what: "my favourite colour is teal" },
  });
  assert.deepEqual(memoryIntent("forget about my diet", ALL), {
    tool: "forget",
    args: { what: "my diet" },
  });
  assert.deepEqual(memoryIntent("Forget this conversation, please", ALL), {
    tool: "forget_session",
    args: {},
  });
});

Deno.test("other messages, and tools not offered, plan no memory step", () => {
  for (const message of ["Remember to submit the expenses", "do you remember my name?", "hello"]) {
    assert.equal(memoryIntent(message, ALL), undefined, message);
  }
  assert.equal(memoryIntent("remember that x", [tool("forget")]), undefined);
  assert.equal(memoryIntent("forget this session", [tool("forget")]), undefined);
});

Deno.test("the heuristic planner plans the memory step, then the reply", async () => {
  const plan = await new HeuristicPlanner().plan({
    request: loopRequest("Remember that I live in Lisbon"),
    context: {},
    tools: ALL,
    signal: new AbortController().signal,
  });
  assert.deepEqual(plan, [
    { tool: "remember", args: { fact: "I live in Lisbon" } },
    { tool: "finalize_summary", args: {} },
  ]);
});
