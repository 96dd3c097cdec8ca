/** Loop overhead per request: scripted planner, in-memory store, hashing embedder. */
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest, mockTools } from "../support/loop_fixture.ts";
import { type BenchResult, measure } from "./harness.ts";

/** Runs the loop-overhead benchmarks. */
export async function loopBenchmarks(): Promise<BenchResult[]> {
  const store = new MemoryConversationStore();
  const plan = [
    { tool: "mock_tool_a", args: { foo: "bar" } },
    { tool: "mock_tool_b", args: { x: 2 } },
    { tool: "finalize_summary", args: {} },
  ];
  const { runner } = buildLoop({ planner: new ScriptedPlanner(plan), tools: mockTools([]), store });
  const requests = Array.from(
    { length: 64 },
    (_, i) =>
      loopRequest(`Please run the mock tools for order ${i} and summarise what they returned`),
  );
  const embedder = new HashingEmbedder();
  const results = [
    await measure(
      "hashing embedder, one 80-character message",
      () => embedder.embed([requests[0].messages[0].content]),
      {
        iterations: 5_000,
      },
    ),
    await measure("loop, 3-step plan, in-memory store", (i) => {
      if (store.rows.length > 1_000) store.rows.length = 0;
      return runner.run(requests[Math.abs(i) % requests.length]);
    }, { iterations: 5_000, warmup: 500 }),
  ];
  return results;
}
