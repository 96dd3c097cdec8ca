/**
 * What a round costs the project itself: the same three steps as one round
 * and as three rounds, planned by the chat planner over a scripted model (so
 * prompt building, plan parsing and checking are measured; no model time), on
 * the in-memory store. The difference, halved, is the added time per round.
 * Also three read-only 600 ms remote calls, which run at the same time.
 */
import { ChatPlanner } from "../../shared/planner/chat_planner.ts";
import type { ChatCompletionRequest } from "../../shared/ports.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { RemoteMcpFixture } from "../fakes/remote_mcp_fixture.ts";
import { ScriptedChatModel } from "../fakes/scripted_chat_model.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest, mockTools } from "../support/loop_fixture.ts";
import { mcpApp } from "../support/mcp_fixture.ts";
import { post, validBody } from "../support/test_app.ts";
import { type BenchResult, measure } from "./harness.ts";

const STEPS = [
  { tool: "mock_tool_a", args: { foo: "bar" } },
  { tool: "mock_tool_b", args: { x: 2 } },
  { tool: "finalize_summary", args: {} },
];

/** A scripted model that plans `perRound` steps per round: the round is read from the prompt. */
function scriptedPlans(perRound: number): ScriptedChatModel {
  return new ScriptedChatModel((request: ChatCompletionRequest) => {
    const prompt = request.messages.at(-1)!.content;
    const done = Number(/The first step of your plan will be step (\d+)/.exec(prompt)?.[1] ?? 0);
    return JSON.stringify({ plan: STEPS.slice(done, done + perRound) });
  });
}

/** Runs the rounds benchmarks. */
export async function roundsBenchmarks(): Promise<BenchResult[]> {
  const rows: BenchResult[] = [];
  for (const [name, perRound] of [["1 round of 3 steps", 3], ["3 rounds of 1 step", 1]] as const) {
    const store = new MemoryConversationStore();
    const { runner } = buildLoop({
      planner: new ChatPlanner(scriptedPlans(perRound)),
      tools: mockTools([]),
      store,
    });
    rows.push(
      await measure(`chat planner on a scripted model, ${name}`, async () => {
        if (store.rows.length > 1_000) store.rows.length = 0;
        const { data } = await runner.run(loopRequest("run the mock tools", { maxRounds: 3 }));
        if (data.intermediateResults.length !== 3) throw new Error("the plan did not run");
      }, { iterations: 2_000, warmup: 200 }),
    );
  }
  const [one, three] = rows;
  rows.push({
    ...three,
    name: "added per round ((3 rounds − 1 round) ÷ 2, medians)",
    medianMs: (three.medianMs - one.medianMs) / 2,
    // A difference of medians; tails and rates of two runs do not subtract.
    p99Ms: NaN,
    meanMs: NaN,
    perSecond: NaN,
  });
  rows.push(await parallelRemoteCalls());
  return rows;
}

/** Three read-only remote calls of 600 ms in one plan, through the app (wall time of the request). */
async function parallelRemoteCalls(): Promise<BenchResult> {
  const fixture = RemoteMcpFixture.start();
  const sleep = { tool: "fixture__sleep", args: { ms: 600 } };
  const app = await mcpApp(
    { MCP_LOOP_REMOTE_SERVERS: JSON.stringify([{ name: "fixture", url: fixture.url }]) },
    { planner: new ScriptedPlanner([sleep, sleep, sleep, { tool: "finalize_summary", args: {} }]) },
  );
  try {
    await app.ready();
    return await measure("three read-only remote calls of 600 ms, one request", async () => {
      const res = await app.fetch(post(validBody("sleep three times")));
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      await res.body?.cancel();
    }, { iterations: 5, warmup: 1 });
  } finally {
    await app.close();
    await fixture.stop();
  }
}
