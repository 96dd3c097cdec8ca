import assert from "node:assert/strict";
import { createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import { FaultySql } from "../fakes/faulty_sql.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { sharedPglite } from "../support/pglite.ts";
import { initializedDataDir } from "../support/process.ts";
import { post, validBody } from "../support/test_app.ts";

async function pgliteApp() {
  const sql = new FaultySql(await sharedPglite());
  // One caller sends many requests at once here: the per-caller limits are not under test.
  const app = createApp(loadConfig({ MCP_LOOP_CALLER_CONCURRENCY: "0" }), {
    sql,
    logger: new RecordingLogger(),
  });
  return { app, sql, pglite: await sharedPglite() };
}

async function countMessages(sessionId: string) {
  const [{ count }] = await (await sharedPglite()).query<{ count: number }>(
    "select count(*)::int as count from chat_messages where session_id = $1",
    [sessionId],
  );
  return count;
}

Deno.test("after a restart, earlier messages are recent and the relevant one is the top semantic match", async () => {
  // A copy of a migrated folder: the restart is the subject, not a first start's initdb.
  const dataDir = await initializedDataDir();
  const config = loadConfig({ MCP_LOOP_DATA_DIR: dataDir, MCP_LOOP_LOG_LEVEL: "silent" });
  const session = `restart-${crypto.randomUUID()}`;
  const say = async (app: ReturnType<typeof createApp>, content: string) => {
    const res = await app.fetch(post(validBody(content, session)));
    assert.equal(res.status, 200);
    return (await res.json()).data;
  };
  try {
    const first = createApp(config);
    await say(first, "Our Postgres replica lags behind the primary during nightly batch imports");
    for (let i = 0; i < 6; i++) {
      await say(first, `Unrelated update number ${i} about the team lunch menu`);
    }
    await first.close();

    const second = createApp(config);
    const data = await say(second, "Why does the replica lag behind the primary during imports?");
    await second.close();
    assert.equal(data.context.recentMessages.length, 10);
    assert.match(
      data.context.recentMessages.at(-1).content,
      /^None of my tools does that/,
    );
    assert.equal(
      data.semanticMatches[0]?.content,
      "Our Postgres replica lags behind the primary during nightly batch imports",
    );
    assert.deepEqual(data.context.semanticMatches, data.semanticMatches);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("concurrent requests on one session are all stored", async () => {
  const { app } = await pgliteApp();
  const session = `concurrent-${crypto.randomUUID()}`;
  const responses = await Promise.all(
    Array.from(
      { length: 20 },
      (_, i) => app.fetch(post(validBody(`parallel message ${i}`, session))),
    ),
  );
  assert.deepEqual(responses.map((r) => r.status), Array(20).fill(200));
  const rows = await (await sharedPglite()).query<{ content: string }>(
    "select content from chat_messages where session_id = $1 and role = 'user'",
    [session],
  );
  assert.equal(rows.length, 20);
  assert.equal(new Set(rows.map((r) => r.content)).size, 20);
});

Deno.test("a database that is unreachable gives 503 DB_UNAVAILABLE", async () => {
  const { app, sql } = await pgliteApp();
  sql.failWhen = () => true;
  const res = await app.fetch(post(validBody()));
  assert.equal(res.status, 503);
  const json = await res.json();
  assert.equal(json.error.code, "DB_UNAVAILABLE");
  assert.match(
    json.error.message,
    /Could not (record the run|load the conversation) (in|from) the database/,
  );
});

Deno.test("a database failing while storing the turn leaves no partial writes", async () => {
  const { app, sql } = await pgliteApp();
  const session = `fault-${crypto.randomUUID()}`;
  sql.failWhen = (text) => text.includes("save_chat_turn");
  const res = await app.fetch(post(validBody("will not be kept", session)));
  assert.equal(res.status, 503);
  assert.equal(await countMessages(session), 0);
  sql.failWhen = () => false;
  const retry = await app.fetch(post(validBody("kept", session)));
  assert.equal(retry.status, 200);
  assert.equal(await countMessages(session), 2);
});

Deno.test("every loop step is audited in mcp_events with the session and duration", async () => {
  const { app, pglite } = await pgliteApp();
  const session = `audit-${crypto.randomUUID()}`;
  await app.fetch(post(validBody("hello", session)));
  const events = await pglite.query<
    { tool: string; success: boolean; source: string; caller: string }
  >(
    "select tool, success, source, caller, duration_ms from mcp_events where session_id = $1",
    [session],
  );
  assert.deepEqual(events.map((e) => [e.tool, e.success, e.source, e.caller]), [
    ["finalize_summary", true, "loop", "anonymous"],
  ]);
});
