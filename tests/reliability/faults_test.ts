/**
 * Fault injection around the ports: each fault yields a clear error or a
 * recorded failed step, the request ends by its deadline at the latest, nothing
 * is half written, and the next request succeeds. Deadlines and step timeouts
 * run on a fake clock: they fire when a test moves it, never because the
 * machine is slow.
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
import { type FakeClock, settle, withFakeDeadlines } from "../support/fake_clock.ts";
import { post, validBody } from "../support/test_app.ts";
import type { ConfigOptions } from "../../shared/config/config_options.ts";

const DEADLINE_MS = 1_000;

type Outcome = {
  status: number;
  // deno-lint-ignore no-explicit-any
  json: { success: boolean; error?: { code: string; message: string }; data?: any };
};

async function run(
  app: App,
  content = "hello",
  sessionId = `fault-${crypto.randomUUID()}`,
): Promise<Outcome> {
  const res = await app.fetch(post(validBody(content, sessionId)));
  return { status: res.status, json: await res.json() };
}

/** A test whose deadlines and step timeouts fire only when it moves `clock`. */
function faultTest(name: string, fn: (clock: FakeClock) => Promise<void>): void {
  Deno.test(name, () => withFakeDeadlines(fn));
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

faultTest(
  "the database failing while the turn is stored: 503, no message, the calls that ran audited all the same, then recovery",
  async () => {
    const sql = new FaultySql(await sharedPglite());
    const app = await mcpApp(env, { sql }, options);
    const session = `fault-${crypto.randomUUID()}`;
    sql.failWhen = (text) => text.includes("save_chat_turn");
    const failed = await run(app, "start a spec refinement loop", session);
    assert.equal(failed.status, 503);
    assert.equal(failed.json.error?.code, "DB_UNAVAILABLE");
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
  },
);

faultTest(
  "the database failing inside a tool: the step is recorded as failed and the turn is still stored",
  async () => {
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
  },
);

faultTest("the database unreachable from the start: 503 at once, then recovery", async () => {
  const sql = new FaultySql(await sharedPglite());
  const app = await mcpApp(env, { sql }, options);
  sql.failWhen = () => true;
  const failed = await run(app);
  assert.deepEqual([failed.status, failed.json.error?.code], [503, "DB_UNAVAILABLE"]);
  sql.failWhen = () => false;
  assert.equal((await run(app)).status, 200);
});

async function withModel(
  fn: (server: FakeOpenAiServer, app: App, clock: FakeClock) => Promise<void>,
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
    await withFakeDeadlines((clock) => fn(server, app, clock));
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
    server.chatReplies.push("[]");
    assert.equal((await run(app)).status, 200);
  }, { maxRetries: 1 }));

Deno.test("the model timing out: 502 MODEL_UNAVAILABLE saying so, within the deadline, then recovery", () =>
  withModel(async (server, app) => {
    server.chatReplies.push({ hang: true });
    const failed = await run(app);
    assert.deepEqual([failed.status, failed.json.error?.code], [502, "MODEL_UNAVAILABLE"]);
    assert.match(failed.json.error!.message, /did not answer in time/);
    server.chatReplies.push("[]");
    assert.equal((await run(app)).status, 200);
  }, { timeoutMs: 150, maxRetries: 0 }));

Deno.test("the model hanging past the deadline: 504 DEADLINE_EXCEEDED at the deadline, then recovery", () =>
  withModel(async (server, app, clock) => {
    server.chatReplies.push({ hang: true });
    let settled = false;
    const failing = run(app).finally(() => settled = true);
    await server.untilHung();
    for (let turn = 0; turn < 5; turn++) await settle();
    assert.equal(settled, false, "it waits for the model until the deadline");
    await clock.advance(DEADLINE_MS);
    const failed = await failing;
    assert.deepEqual([failed.status, failed.json.error?.code], [504, "DEADLINE_EXCEEDED"]);
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
/** Called once the tool that never returns has started. */
let stuckStarted = Promise.withResolvers<void>();
const stuck = defineTool({
  name: "never_returns",
  description: "never returns",
  argsSchema: z.object({}),
  annotations: { readOnlyHint: true },
  run: () => {
    stuckStarted.resolve();
    return new Promise(() => {});
  },
});

faultTest(
  "a tool throwing and a tool never returning: failed and timed-out steps, within the deadline, then recovery",
  async (clock) => {
    stuckStarted = Promise.withResolvers<void>();
    const app = await mcpApp(env, {
      tools: [throwing, stuck],
      planner: new ScriptedPlanner([
        { tool: "explodes", args: {} },
        { tool: "never_returns", args: {} },
        { tool: "finalize_summary", args: {} },
      ]),
    }, options);
    const session = `fault-${crypto.randomUUID()}`;
    const running = run(app, "go", session);
    await stuckStarted.promise;
    await clock.advance(300); // the step timeout
    const outcome = await running;
    assert.equal(outcome.status, 200);
    const [boom, hang, summary] = outcome.json.data.intermediateResults;
    assert.deepEqual([boom.success, boom.error], [false, "kaboom"]);
    assert.deepEqual([hang.success, hang.error], [false, "the step timed out after 300 ms"]);
    assert.equal(summary.success, true);
    assert.equal(
      outcome.json.data.summaryMessage,
      "explodes failed: kaboom\nnever_returns failed: the step timed out after 300 ms",
    );
    assert.equal(await rows("mcp_events", session), 3);
    // The same plan again: the app is not left stuck by the call that never returned.
    stuckStarted = Promise.withResolvers<void>();
    const again = run(app);
    await stuckStarted.promise;
    await clock.advance(300);
    assert.equal((await again).status, 200);
  },
);

faultTest(
  "a remote MCP server dying mid-call: a failed step within the deadline, then recovery",
  async (clock) => {
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
      await fixture.called("sleep");
      await fixture.stop();
      // The call fails with the connection, or else at its step timeout.
      await clock.advance(800);
      const outcome = await pending;
      assert.equal(outcome.status, 200);
      const [step] = outcome.json.data.intermediateResults;
      assert.equal(step.success, false);
      assert.match(step.error, /fixture|timed out/);
      assert.equal((await run(app)).status, 200);
    } finally {
      await app.close();
      await fixture.stop();
    }
  },
);
