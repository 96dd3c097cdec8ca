/** The refinement decision: the pure policy, and a decide round trip through the store on PGlite. */
import type { LoopState } from "../../shared/store/refinement_store_port.ts";
import { decide } from "../../shared/refinement/policy.ts";
import { SqlRefinementStore } from "../../shared/store/sql_refinement_store.ts";
import { sharedPglite } from "../support/pglite.ts";
import { type BenchResult, measure } from "./harness.ts";

/** Runs the refinement benchmarks. */
export async function refinementBenchmarks(): Promise<BenchResult[]> {
  const state: LoopState = {
    id: "a1b2c3d4",
    loopType: "plan",
    status: "refine",
    currentScore: 70,
    scoreHistory: [50, 65, 70],
    iteration: 3,
    threshold: 85,
    maxIterations: 5,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  };
  const results = [
    await measure("decide (pure policy)", (i) => decide(state, Math.abs(i) % 80, state.updatedAt), {
      iterations: 100_000,
      warmup: 10_000,
    }),
  ];
  const store = new SqlRefinementStore(await sharedPglite());
  const caller = { userId: null, owner: "bench" };
  const loop = await store.create(caller, { loopType: "plan", threshold: 100, maxIterations: 20 });
  results.push(
    await measure(
      "decide_loop_next_action round trip on PGlite (lock, decide, update)",
      (i) =>
        store.update(
          caller,
          loop.id,
          (s) => decide({ ...s, scoreHistory: s.scoreHistory.slice(-5) }, Math.abs(i) % 100),
        ),
      { iterations: 2_000, warmup: 100 },
    ),
    await measure("get_loop_status round trip on PGlite", () => store.get(caller, loop.id), {
      iterations: 2_000,
      warmup: 100,
    }),
  );
  return results;
}
