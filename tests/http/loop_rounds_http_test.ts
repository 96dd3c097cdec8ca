/** Rounds and refinement through `POST /mcp-loop`: the stream, the body, bad input and the log line. */
import assert from "node:assert/strict";
import { MemoryRefinementStore } from "../fakes/memory_refinement_store.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { ScriptedScorer } from "../fakes/scripted_scorer.ts";
import { post, testApp, validBody } from "../support/test_app.ts";

const finalizeEachRound = () => new ScriptedPlanner(() => [{ tool: "finalize_summary", args: {} }]);

/** The `event:` names of an SSE body, and the data of each. */
async function readEvents(res: Response): Promise<{ name: string; data: unknown }[]> {
  const text = await res.text();
  return text.trim().split("\n\n").map((block) => {
    const name = /^event: (.+)$/m.exec(block)![1];
    return { name, data: JSON.parse(/^data: (.+)$/m.exec(block)![1]) };
  });
}

Deno.test("a refinement run streams round_start and score per round, then the summary and the result", async () => {
  const { app } = testApp({
    planner: finalizeEachRound(),
    scorer: new ScriptedScorer(60, 90),
    refinementStore: new MemoryRefinementStore(),
  });
  const res = await app.fetch(post(
    { ...validBody("write the spec"), refinement: { loopType: "spec" } },
    { headers: { accept: "text/event-stream" } },
  ));
  const events = await readEvents(res);
  assert.deepEqual(events.map((e) => e.name), [
    "run",
    "context",
    "round_start",
    "plan",
    "step_start",
    "step_end",
    "score",
    "round_start",
    "plan",
    "step_start",
    "step_end",
    "score",
    "summary",
    "result",
  ]);
  const scores = events.filter((e) => e.name === "score").map((e) => e.data) as {
    score: number;
    decision: string;
    threshold: number;
  }[];
  assert.deepEqual(scores.map((s) => [s.score, s.decision, s.threshold]), [
    [60, "refine", 85],
    [90, "completed", 85],
  ]);
  const result = events.at(-1)!.data as { data: Record<string, unknown> };
  assert.equal(result.data.stopReason, "refinement_completed");
  assert.equal(result.data.rounds, 2);
  assert.equal((result.data.refinement as { status: string }).status, "completed");
  // Step indexes count across rounds.
  const ends = events.filter((e) => e.name === "step_end").map((e) => e.data) as {
    index: number;
    round: number;
  }[];
  assert.deepEqual(ends.map((e) => [e.index, e.round]), [[0, 1], [1, 2]]);
});

Deno.test("offline, a refinement request is planned heuristically and scored by the offline scorer", async () => {
  const { app } = testApp({ refinementStore: new MemoryRefinementStore() });
  const res = await app.fetch(post({
    ...validBody("list my refinement loops"),
    refinement: { loopType: "plan" },
    maxRounds: 2,
  }));
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  const { refinement, stopReason, usage } = json.data;
  assert.equal(refinement.loop_type, "plan");
  assert.equal(refinement.score_history.length, json.data.rounds);
  assert.ok(["refinement_completed", "refinement_user_input", "max_rounds"].includes(stopReason));
  assert.deepEqual(usage, { modelCalls: 0, promptTokens: 0, completionTokens: 0 });
});

Deno.test("bad maxRounds or refinement values are 422 naming the field", async () => {
  const { app } = testApp();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ maxRounds: 0 }, /maxRounds: maxRounds must be an integer from 1 to 5/],
    [{ maxRounds: 6 }, /maxRounds must be an integer from 1 to 5/],
    [{ maxRounds: "2" }, /maxRounds must be an integer from 1 to 5/],
    [{ refinement: { loopType: "novel" } }, /refinement\.loopType/],
    [{ refinement: { loopType: "spec", loopId: "XYZ" } }, /refinement\.loopId is the 8 lowercase/],
    [{ refinement: { loopType: "spec", extra: 1 } }, /refinement/],
  ];
  for (const [extra, message] of cases) {
    const res = await app.fetch(post({ ...validBody(), ...extra }));
    const json = await res.json();
    assert.equal(res.status, 422, JSON.stringify(extra));
    assert.equal(json.error.code, "VALIDATION_FAILED");
    assert.match(json.error.message, message);
  }
});

Deno.test("a refinement request for another caller's or an unknown loop is 404 LOOP_NOT_FOUND", async () => {
  const { app } = testApp({ refinementStore: new MemoryRefinementStore() });
  const res = await app.fetch(post({
    ...validBody(),
    refinement: { loopType: "spec", loopId: "0000abcd" },
  }));
  assert.equal(res.status, 404);
  assert.equal((await res.json()).error.code, "LOOP_NOT_FOUND");
});

Deno.test("the request log line has each round's plan and execute time", async () => {
  const { app, logger } = testApp({
    planner: new ScriptedPlanner([{ tool: "finalize_summary", args: {} }]),
  });
  await app.fetch(post(validBody()));
  const line = logger.entries.find((e) => e.message === "request")!;
  const rounds = line.fields!.rounds as { round: number; plan: number; execute: number }[];
  assert.equal(rounds.length, 1);
  assert.equal(rounds[0].round, 1);
  assert.equal(typeof rounds[0].plan, "number");
  assert.equal(typeof rounds[0].execute, "number");
  assert.equal(typeof (line.fields!.stages as Record<string, number>).plan, "number");
});
