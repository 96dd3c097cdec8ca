import assert from "node:assert/strict";
import { createHealthHandler } from "../../shared/http/health_handler.ts";
import { lazySql } from "../../shared/store/lazy_sql.ts";
import type { Sql } from "../../shared/ports.ts";
import { FakeSql } from "../fakes/fake_sql.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { testApp } from "../support/test_app.ts";

const get = () => new Request("http://localhost/mcp-loop/health");

Deno.test("while the database is still opening, health answers at once: 503 starting, no warning", async () => {
  const logger = new RecordingLogger();
  let open: (sql: Sql) => void = () => {};
  // A database that takes forever to open: health must not wait for it.
  const database = lazySql(() => new Promise<Sql>((resolve) => open = resolve));
  database.ready();
  const health = createHealthHandler({ database, describe: () => ({}), logger });
  const early = await health(get());
  assert.equal(early.status, 503);
  const body = await early.json();
  assert.equal(body.starting, true);
  assert.deepEqual(body.checks.database, {
    ok: false,
    starting: true,
    error: "the database is still starting",
  });
  assert.equal(logger.entries.filter((e) => e.level === "warn").length, 0);
  open(new FakeSql());
  await database.ready();
  const ready = await health(get());
  assert.equal(ready.status, 200);
  assert.equal((await ready.json()).checks.database.ok, true);
});

Deno.test("a database that fails is reported down with the detail in the log only", async () => {
  const logger = new RecordingLogger();
  const health = createHealthHandler({
    database: lazySql(() => Promise.reject(new Error("connection refused at 10.0.0.5"))),
    describe: () => ({}),
    logger,
  });
  const res = await health(get());
  assert.equal(res.status, 503);
  const text = await res.text();
  assert.doesNotMatch(text, /10\.0\.0\.5/);
  assert.match(text, /not reachable/);
  assert.ok(
    logger.entries.some((e) => e.level === "warn" && /10\.0\.0\.5/.test(String(e.fields?.error))),
  );
});

Deno.test("with authentication required, health shows the details only to a caller with a credential", async () => {
  const KEY = "alice-key-0123456789";
  const { app } = testApp({}, {
    MCP_LOOP_API_KEYS: `alice=${KEY}`,
    MCP_LOOP_REMOTE_SERVERS: '[{"name":"docs","url":"http://127.0.0.1:9/mcp"}]',
  });
  const anonymous = await (await app.fetch(get())).json();
  assert.equal("tools" in anonymous, false);
  assert.equal("chatModel" in anonymous, false);
  assert.deepEqual(Object.keys(anonymous.checks["remote:docs"]), ["ok"], "no URL, no tool names");
  assert.doesNotMatch(
    JSON.stringify(anonymous),
    /127\.0\.0\.1:9|get_current_time|finalize_summary/,
  );
  const signedIn = await (await app.fetch(
    new Request("http://localhost/mcp-loop/health", {
      headers: { authorization: `Bearer ${KEY}` },
    }),
  )).json();
  assert.ok(Array.isArray(signedIn.tools));
  assert.match(JSON.stringify(signedIn.checks["remote:docs"]), /127\.0\.0\.1:9/);
  await app.close();
});
