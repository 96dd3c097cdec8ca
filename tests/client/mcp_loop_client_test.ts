/** The typed web client against the real server on loopback. */
import assert from "node:assert/strict";
import {
  createMcpLoopClient,
  McpLoopError,
  type StreamEvent,
} from "../../shared/client/mcp_loop_client.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { serve } from "../support/mcp_fixture.ts";
import { testApp, validBody } from "../support/test_app.ts";

const API_KEY = "client-test-key-0123456789";

async function withServer(
  fn: (url: string) => Promise<void>,
  { env = {}, planner }: { env?: Record<string, string>; planner?: ScriptedPlanner } = {},
) {
  const { app } = testApp({
    planner: planner ?? new ScriptedPlanner([{ tool: "finalize_summary", args: {} }]),
  }, env);
  const server = serve(app);
  try {
    await fn(`${server.base}/mcp-loop`);
  } finally {
    await server.close();
  }
}

Deno.test("client.run resolves with the response's data", () =>
  withServer(async (url) => {
    const client = createMcpLoopClient({ url });
    const data = await client.run(validBody("hello there") as never);
    assert.equal(data.stopReason, "finalized");
    assert.match(data.summaryMessage!, /No tools were needed/);
    assert.deepEqual(data.plan, [{ tool: "finalize_summary", args: {}, round: 1 }]);
  }));

Deno.test("client.stream yields typed events in order, ending with the result", () =>
  withServer(async (url) => {
    const client = createMcpLoopClient({ url });
    const events: StreamEvent[] = [];
    for await (const event of client.stream(validBody("hello") as never)) events.push(event);
    assert.deepEqual(events.map((e) => e.type), [
      "run",
      "context",
      "round_start",
      "plan",
      "step_start",
      "step_end",
      "summary",
      "result",
    ]);
    const end = events.find((e) => e.type === "step_end");
    assert.equal(end?.type === "step_end" && end.result.tool, "finalize_summary");
    const result = events.at(-1);
    assert.equal(result?.type === "result" && result.data.rounds, 1);
  }));

Deno.test("a bad request throws McpLoopError with the server's code, status, message and details", () =>
  withServer(async (url) => {
    const client = createMcpLoopClient({ url });
    for (
      const call of [client.run, (r: never) => client.stream(r)[Symbol.asyncIterator]().next()]
    ) {
      await assert.rejects(call({ ...validBody(), mode: "wizard" } as never), (error) => {
        assert.ok(error instanceof McpLoopError);
        assert.equal(error.code, "VALIDATION_FAILED");
        assert.equal(error.status, 422);
        assert.match(error.message, /mode/);
        assert.equal((error.details as { issues: { path: string }[] }).issues[0].path, "mode");
        return true;
      });
    }
  }));

Deno.test("accessToken may be a function, asked before every request", () =>
  withServer(async (url) => {
    let asked = 0;
    const client = createMcpLoopClient({
      url,
      accessToken: () => {
        asked++;
        return Promise.resolve(asked === 1 ? API_KEY : "wrong-key-0123456789");
      },
    });
    await client.run(validBody() as never);
    await assert.rejects(
      client.run(validBody() as never),
      (error) => error instanceof McpLoopError && error.status === 401,
    );
    assert.equal(asked, 2);
  }, { env: { MCP_LOOP_API_KEYS: `web=${API_KEY}` } }));

Deno.test("an unreachable server is NETWORK_ERROR and an aborted call ABORTED", async () => {
  const client = createMcpLoopClient({ url: "http://127.0.0.1:9/mcp-loop" });
  await assert.rejects(
    client.run(validBody() as never),
    (error) =>
      error instanceof McpLoopError && error.code === "NETWORK_ERROR" && error.status === 0,
  );
  await withServer(async (url) => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      createMcpLoopClient({ url }).run(validBody() as never, { signal: controller.signal }),
      (error) => error instanceof McpLoopError && error.code === "ABORTED",
    );
  });
});

Deno.test("a run that fails while streaming yields the error event, then throws it", () =>
  withServer(async (url) => {
    const client = createMcpLoopClient({ url });
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const event of client.stream(validBody() as never)) seen.push(event.type);
    }, (error) => error instanceof McpLoopError && error.code === "INTERNAL");
    assert.deepEqual(seen, ["run", "context", "round_start", "error"]);
  }, { planner: new ScriptedPlanner(new Error("planner bug")) }));
