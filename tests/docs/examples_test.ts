/**
 * The runnable examples in docs/examples/ and the README's example, run as
 * written: the loop in code, a custom tool, the MCP client and the web
 * client (the last two against the real server on loopback).
 */
import assert from "node:assert/strict";
import { main as customTool } from "../../docs/examples/custom_tool.ts";
import { main as loopInCode } from "../../docs/examples/loop_in_code.ts";
import { main as mcpClient } from "../../docs/examples/mcp_client.ts";
import { main as webClient } from "../../docs/examples/web_client.ts";
import tools from "../../functions/mcp-loop/tools.ts";
import { serve } from "../support/mcp_fixture.ts";
import { testApp } from "../support/test_app.ts";

const quiet = <T>(fn: () => Promise<T>) => async () => {
  const log = console.log;
  console.log = () => {};
  try {
    return await fn();
  } finally {
    console.log = log;
  }
};

async function withServer(fn: (base: string) => Promise<void>) {
  const { app } = testApp({ tools });
  const server = serve(app);
  try {
    await fn(server.base);
  } finally {
    await server.close();
  }
}

Deno.test("loop_in_code: the README's request plans a loop, a score referencing it, and the summary", async () => {
  const { data } = await quiet(() =>
    loopInCode("Start a spec refinement loop and record a score of 72")
  )();
  assert.deepEqual(data.plan, [
    { tool: "initialize_refinement_loop", args: { loop_type: "spec" }, round: 1 },
    {
      tool: "decide_loop_next_action",
      args: { loop_id: { $ref: "/steps/0/output/id" }, current_score: 72 },
      round: 1,
    },
    { tool: "finalize_summary", args: {}, round: 1 },
  ]);
  assert.equal(data.stopReason, "finalized");
  assert.equal(data.rounds, 1);
  assert.ok(data.intermediateResults.every((step) => step.success));
  assert.match(
    data.summaryMessage!,
    /^I started a spec refinement loop with id ([0-9a-f]{8}): .*\nLoop \1 scored 72, below its threshold of 85/,
  );
});

Deno.test("custom_tool: the loop chooses the tool, which reads the caller's stored messages", async () => {
  const step = await customTool();
  assert.equal(step?.success, true, JSON.stringify(step));
  assert.deepEqual(step?.input, { session_id: "notes" });
  assert.equal((step?.output as { messages: number }).messages, 2);
});

Deno.test("mcp_client: lists the tools, calls get_current_time, and is asked before forget_session runs, in both protocol eras", () =>
  withServer(async (base) => {
    for (const modern of [false, true]) {
      const asked: string[] = [];
      const { tools: names, time, forget } = await mcpClient(`${base}/mcp-loop/mcp`, undefined, {
        modern,
        approve: (question) => asked.push(question) > 0,
      });
      assert.ok(names.includes("get_current_time") && names.includes("finalize_summary"));
      assert.equal((time as { time_zone: string }).time_zone, "Europe/Lisbon");
      // Approved, it ran: the fresh server never held that conversation.
      assert.match(forget.text ?? "", /no session "example-scratch" to delete/);
      assert.equal(asked.length, 1, `modern: ${modern}`);
      assert.match(asked[0], /Allow the tool "forget_session"/);
    }
  }));

Deno.test("web_client: streams a run to its result, and a bad request is VALIDATION_FAILED", () =>
  withServer(async (base) => {
    const { events, error } = await quiet(() => webClient(`${base}/mcp-loop`))();
    assert.deepEqual(events.slice(0, 2), ["run", "context"]);
    assert.equal(events.at(-1), "result");
    assert.ok(events.includes("step_end"));
    assert.deepEqual(error, { code: "VALIDATION_FAILED", status: 422 });
  }));
