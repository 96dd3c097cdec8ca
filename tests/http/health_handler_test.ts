import assert from "node:assert/strict";
import { createHealthHandler } from "../../shared/http/health_handler.ts";
import type { Sql } from "../../shared/ports.ts";
import { FakeSql } from "../fakes/fake_sql.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";

const get = () => new Request("http://localhost/mcp-loop/health");

Deno.test("while the database is still opening, health says starting (503) and logs no warning", async () => {
  const logger = new RecordingLogger();
  let open: (sql: Sql) => void = () => {};
  const opening = new Promise<Sql>((resolve) => open = resolve);
  const health = createHealthHandler({
    database: () => opening,
    describe: () => ({}),
    logger,
    timeoutMs: 5,
  });
  const early = await health(get());
  assert.equal(early.status, 503);
  assert.deepEqual((await early.json()).checks.database, {
    ok: false,
    starting: true,
    error: "the database is still starting",
  });
  assert.equal(logger.entries.filter((e) => e.level === "warn").length, 0);
  open(new FakeSql());
  const ready = await health(get());
  assert.equal(ready.status, 200);
  assert.equal((await ready.json()).checks.database.ok, true);
});

Deno.test("a database that fails is reported down with the detail in the log only", async () => {
  const logger = new RecordingLogger();
  const health = createHealthHandler({
    database: () => Promise.reject(new Error("connection refused at 10.0.0.5")),
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
