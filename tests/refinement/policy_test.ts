import assert from "node:assert/strict";
import type { LoopState } from "../../shared/store/refinement_store_port.ts";
import { LoopStateError, LoopValidationError } from "../../shared/errors.ts";
import {
  assertLoopType,
  assertScore,
  decide,
  DEFAULT_LOOP_SETTINGS,
  detectStagnation,
} from "../../shared/refinement/policy.ts";

function newLoop(
  loopType: LoopState["loopType"],
  settings = DEFAULT_LOOP_SETTINGS[loopType],
): LoopState {
  return {
    id: "a1b2c3d4",
    loopType,
    status: "initialized",
    currentScore: null,
    scoreHistory: [],
    iteration: 0,
    threshold: settings.threshold,
    maxIterations: settings.maxIterations,
    createdAt: "t",
    updatedAt: "t",
  };
}

function feed(state: LoopState, scores: number[]): string[] {
  const statuses: string[] = [];
  for (const score of scores) {
    state = decide(state, score);
    statuses.push(state.status);
  }
  return statuses;
}

Deno.test("50, 65, 70 is not stagnant; adding 73 and 75 is (the specification's unit case)", () => {
  assert.equal(detectStagnation([50, 65, 70]), false);
  assert.equal(detectStagnation([50, 65, 70, 73, 75]), true);
});

Deno.test("fewer than three scores are never stagnant", () => {
  assert.equal(detectStagnation([]), false);
  assert.equal(detectStagnation([50]), false);
  assert.equal(detectStagnation([50, 50]), false);
});

Deno.test("an improvement of exactly 5 points is progress, a drop is not", () => {
  assert.equal(detectStagnation([60, 65, 70]), false);
  assert.equal(detectStagnation([60, 64, 68]), true);
  assert.equal(detectStagnation([70, 60, 50]), true);
});

Deno.test("spec: 70 refines, then 90 completes (the specification's integration case)", () => {
  assert.deepEqual(feed(newLoop("spec"), [70, 90]), ["refine", "completed"]);
});

Deno.test("plan fed 50, 65, 70, 73, 75 refines four times, then asks for user input (stagnation)", () => {
  assert.deepEqual(feed(newLoop("plan"), [50, 65, 70, 73, 75]), [
    "refine",
    "refine",
    "refine",
    "refine",
    "user_input",
  ]);
});

Deno.test("build_code fed 10…60 refines five times, then asks for user input (iteration limit)", () => {
  assert.deepEqual(feed(newLoop("build_code"), [10, 20, 30, 40, 50, 60]), [
    "refine",
    "refine",
    "refine",
    "refine",
    "refine",
    "user_input",
  ]);
});

Deno.test("each type's threshold decides completion: 85, 85, 80, 95", () => {
  for (
    const [type, threshold] of [["plan", 85], ["spec", 85], ["build_plan", 80], [
      "build_code",
      95,
    ]] as const
  ) {
    assert.equal(decide(newLoop(type), threshold).status, "completed", `${type} at ${threshold}`);
    assert.equal(
      decide(newLoop(type), threshold - 1).status,
      "refine",
      `${type} at ${threshold - 1}`,
    );
  }
});

Deno.test("the threshold is checked before the iteration limit and stagnation", () => {
  const exhausted = {
    ...newLoop("plan"),
    iteration: 5,
    scoreHistory: [80, 81],
    status: "refine" as const,
  };
  assert.equal(decide(exhausted, 85).status, "completed");
  assert.equal(decide(exhausted, 82).status, "user_input");
});

Deno.test("settings change the threshold and the limit", () => {
  assert.deepEqual(feed(newLoop("plan", { threshold: 60, maxIterations: 2 }), [10, 30, 50]), [
    "refine",
    "refine",
    "user_input",
  ]);
  assert.equal(
    decide(newLoop("plan", { threshold: 60, maxIterations: 2 }), 60).status,
    "completed",
  );
});

Deno.test("decide records the score and history and counts iterations; the input is unchanged", () => {
  const start = newLoop("spec");
  const next = decide(start, 70);
  assert.deepEqual([next.currentScore, next.scoreHistory, next.iteration], [70, [70], 1]);
  assert.deepEqual(start.scoreHistory, []);
});

Deno.test("a completed loop refuses more scores; user_input may continue", () => {
  const done = decide(newLoop("spec"), 90);
  assert.throws(
    () => decide(done, 95),
    (e) => e instanceof LoopStateError && /already completed/.test(e.message),
  );
  const stuck = {
    ...newLoop("plan"),
    status: "user_input" as const,
    iteration: 5,
    scoreHistory: [70, 71, 72],
  };
  assert.equal(decide(stuck, 90).status, "completed");
});

Deno.test("scores must be integers from 0 to 100, loop types one of the four", () => {
  for (const bad of [-1, 101, 50.5, "70", null, NaN]) {
    assert.throws(() => assertScore(bad), LoopValidationError, String(bad));
    assert.throws(() => decide(newLoop("plan"), bad as number), LoopValidationError);
  }
  assert.equal(assertScore(0), 0);
  assert.equal(assertScore(100), 100);
  assert.throws(() => assertLoopType("design"), /use one of plan, spec, build_plan, build_code/);
  assert.equal(assertLoopType("build_plan"), "build_plan");
});

Deno.test("a loop at user_input goes on one iteration per score until its limit, then takes only a completing score", () => {
  let loop = { ...newLoop("plan"), maxIterations: 3 };
  for (const score of [50, 51, 52]) loop = decide(loop, score);
  assert.equal(loop.status, "user_input", "stagnation");
  const before = loop.iteration;
  loop = decide(loop, 53);
  assert.equal(loop.iteration, before + 1, "going on counts as an iteration");
  while (loop.iteration < loop.maxIterations) loop = decide(loop, 54);
  assert.equal(loop.status, "user_input");
  const length = loop.scoreHistory.length;
  for (let i = 0; i < 3; i++) {
    assert.throws(
      () => decide(loop, 60),
      (e) => e instanceof LoopStateError && /limit of 3/.test(e.message),
    );
  }
  assert.equal(loop.scoreHistory.length, length, "the history does not grow");
  assert.equal(decide(loop, 90).status, "completed");
});
