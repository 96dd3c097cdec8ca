/**
 * Fault injection around the ports: each fault yields a clear error or a
 * recorded failed step, the request ends within its deadline, nothing is half
 * written, and the next request succeeds.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import type { App } from "../../shared/app/app.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";
import { FaultySql } from "../fakes/faulty_sql.ts";
import { RemoteMcpFixture } from "../fakes/remote_mcp_fixture.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { mcpApp } from "../support/mcp_fixture.ts";
import { sharedPglite } from "../support/pglite.ts";
import { post, validBody } from "../support/test_app.ts";
import type { ConfigOptions } from "../../shared/config/config_options.ts";

const DEADLINE_MS = 1_000;
/** Slack for scheduling on a busy machine: the bound checked is "ended because of the deadline". */
const SLACK_MS = 1_000;

type Outcome = {
  status: number;
  // deno-lint-ignore no-explicit-any
  json: { success: boolean; error?: { code: string; message: string }; data?: any };
  ms: number;
};

async function run(
  app: App,
  content = "hello",
  sessionId = `fault-${crypto.randomUUID()}`,
): Promise<Outcome> {
  const started = performance.now();
  const res = await app.fetch(post(validBody(content, sessionId)));
  return { status: res.status, json: await res.json(), ms: performance.now() - started };
}

async function rows(table: "chat_messages" | "mcp_events", sessionId: string): Promise<number> {
  const [{ count }] = await (await sharedPglite()).query<{ count: number }>(
    `select count(*)::int as count from ${table} where session_id = $1`,
    [sessionId],
  );
  return count;
}

const env = { MCP_LOOP_DEADLINE_MS: String(DEADLINE_MS) };
const options: ConfigOptions = { loop: { stepTimeoutMs: 300 } };

Deno.test("the database failing while the turn is stored: 503, no message, the calls that ran audited all the same, then recovery", async () => {
  const sql = new FaultySql(await sharedPglite());
  const app = await mcpApp(env, { sql }, options);
  const session = `fault-${crypto.randomUUID()}`;
  sql.failWhen = (text) => text.includes("save_chat_turn");
  const failed = await run(app, "start a spec refinement loop", session);
  assert.equal(failed.status, 503);
  assert.equal(failed.json.error?.code, "DB_UNAVAILABLE");
  assert.ok(failed.ms < DEADLINE_MS + SLACK_MS);
  // The turn is stored atomically or not at all; the loop it created is on record.
  assert.deepEqual([await rows("chat_messages", session), await rows("mcp_events", session)], [
    0,
    2,
  ]);
  sql.failWhen = () => false;
  const next = await run(app, "hello again", session);
  assert.equal(next.status, 200);
  assert.deepEqual([await rows("chat_messages", session), await rows("mcp_events", session)], [
    2,
    3,
  ]);
});

Deno.test("the database failing inside a tool: the step is recorded as failed and the turn is still stored", async () => {
  const sql = new FaultySql(await sharedPglite());
  const app = await mcpApp(env, { sql }, options);
  const session = `fault-${crypto.randomUUID()}`;
  sql.failWhen = (text) => text.includes("refinement_loops");
  const outcome = await run(app, "start a spec refinement loop", session);
  assert.equal(outcome.status, 200);
  const [step] = outcome.json.data.intermediateResults;
  assert.deepEqual([step.tool, step.success], ["initialize_refinement_loop", false]);
  // The database's own text stays in the log, not in what the client sees.
  assert.match(step.error, /the database failed the statement/);
  assert.doesNotMatch(step.error, /connection terminated/);
  assert.equal(await rows("mcp_events", session), 2);
  sql.failWhen = () => false;
  assert.equal(
    (await run(app, "start a spec refinement loop")).json.data.intermediateResults[0].success,
    true,
  );
});

Deno.test("the database unreachable from the start: 503 at once, then recovery", async () => {
  const sql = new FaultySql(await sharedPglite());
  const app = await mcpApp(env, { sql }, options);
  sql.failWhen = () => true;
  const failed = await run(app);
  assert.deepEqual([failed.status, failed.json.error?.code], [503, "DB_UNAVAILABLE"]);
  sql.failWhen = () => false;
  assert.equal((await run(app)).status, 200);
});

async function withModel(
  fn: (server: FakeOpenAiServer, app: App) => Promise<void>,
  models: NonNullable<ConfigOptions["models"]> = {},
) {
  const server = FakeOpenAiServer.start();
  const app = await mcpApp(
    {
      ...env,
      OPENAI_API_KEY: "sk-test-0000000000000000",
      OPENAI_BASE_URL: server.baseUrl,
    },
    {},
    { ...options, models },
  );
  try {
    await fn(server, app);
  } finally {
    await server.close();
  }
}

Deno.test("the model returning 500s: 502 MODEL_UNAVAILABLE after the retries, then recovery", () =>
  withModel(async (server, app) => {
    server.embeddingReplies.push({ status: 500 }, { status: 500 });
    const failed = await run(app);
    assert.deepEqual([failed.status, failed.json.error?.code], [502, "MODEL_UNAVAILABLE"]);
    assert.equal(server.embeddingRequests.length, 2, "one retry");
    assert.ok(failed.ms < DEADLINE_MS + SLACK_MS);
    server.chatReplies.push("[]");
    assert.equal((await run(app)).status, 200);
  }, { maxRetries: 1 }));

Deno.test("the model timing out: 502 MODEL_UNAVAILABLE saying so, within the deadline, then recovery", () =>
  withModel(async (server, app) => {
    server.chatReplies.push({ hang: true });
    const failed = await run(app);
    assert.deepEqual([failed.status, failed.json.error?.code], [502, "MODEL_UNAVAILABLE"]);
    assert.match(failed.json.error!.message, /did not answer in time/);
    assert.ok(failed.ms < DEADLINE_MS + SLACK_MS);
    server.chatReplies.push("[]");
    assert.equal((await run(app)).status, 200);
  }, { timeoutMs: 150, maxRetries: 0 }));

Deno.test("the model hanging past the deadline: 504 DEADLINE_EXCEEDED at the deadline, then recovery", () =>
  withModel(async (server, app) => {
    server.chatReplies.push({ hang: true });
    const failed = await run(app);
    assert.deepEqual([failed.status, failed.json.error?.code], [504, "DEADLINE_EXCEEDED"]);
    assert.ok(
      failed.ms >= DEADLINE_MS * 0.9 && failed.ms < DEADLINE_MS + SLACK_MS,
      `${failed.ms} ms`,
    );
    server.chatReplies.push("[]");
    assert.equal((await run(app)).status, 200);
  }));

const throwing = defineTool({
  name: "explodes",
  description: "always throws",
  argsSchema: z.object({}),
  annotations: { readOnlyHint: true },
  run: () => {
    throw new Error("kaboom");
  },
});
const stuck = defineTool({
  name: "never_returns",
  description: "never returns",
  argsSchema: z.object({}),
  annotations: { readOnlyHint: true },
  run: () => new Promise(() => {}),
});

Deno.test("a tool throwing and a tool never returning: failed and timed-out steps, within the deadline, then recovery", async () => {
  const app = await mcpApp(env, {
    tools: [throwing, stuck],
    planner: new ScriptedPlanner([
      { tool: "explodes", args: {} },
      { tool: "never_returns", args: {} },
      { tool: "finalize_summary", args: {} },
    ]),
  }, options);
  const session = `fault-${crypto.randomUUID()}`;
  const outcome = await run(app, "go", session);
  assert.equal(outcome.status, 200);
  const [boom, hang, summary] = outcome.json.data.intermediateResults;
  assert.deepEqual([boom.success, boom.error], [false, "kaboom"]);
  assert.deepEqual([hang.success, hang.error], [false, "the step timed out after 300 ms"]);
  assert.equal(summary.success, true);
  assert.equal(
    outcome.json.data.summaryMessage,
    "explodes failed: kaboom\nnever_returns failed: the step timed out after 300 ms",
  );
  assert.ok(outcome.ms < DEADLINE_MS + SLACK_MS);
  assert.equal(await rows("mcp_events", session), 3);
  assert.equal((await run(app)).status, 200);
});

Deno.test("a remote MCP server dying mid-call: a failed step within the deadline, then recovery", async () => {
  const fixture = RemoteMcpFixture.start();
  const app = await mcpApp({
    ...env,
    MCP_LOOP_REMOTE_SERVERS: JSON.stringify([{ name: "fixture", url: fixture.url }]),
  }, {
    planner: new ScriptedPlanner(
      [{ tool: "fixture__sleep", args: { ms: 5_000 } }, { tool: "finalize_summary", args: {} }],
      [{ tool: "finalize_summary", args: {} }],
    ),
  }, { loop: { stepTimeoutMs: 800 }, mcp: { remoteRetryMs: 50 } });
  try {
    await app.ready();
    const pending = run(app);
    while (!fixture.calls.includes("sleep")) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const stopping = fixture.stop();
    const outcome = await pending;
    await stopping;
    assert.equal(outcome.status, 200);
    const [step] = outcome.json.data.intermediateResults;
    assert.equal(step.success, false);
    assert.match(step.error, /fixture|timed out/);
    assert.ok(outcome.ms < DEADLINE_MS + SLACK_MS);
    assert.equal((await run(app)).status, 200);
  } finally {
    await app.close();
    await fixture.stop();
  }
});
