/**
 * PGlite has no autovacuum: the app analyzes a table once it holds 8 pages and
 * has doubled since its last analyze, never an empty one (whose statistics made
 * a growing session's requests slower for the life of the process).
 */
import assert from "node:assert/strict";
import type { Sql } from "../../shared/ports.ts";
import { keepStatistics, refreshStaleStatistics } from "../../shared/store/table_statistics.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { openMigrated } from "../support/pglite.ts";

const relation = async (sql: Sql, name: string) =>
  (await sql.query<{ reltuples: number; relpages: number }>(
    "select reltuples::float8 as reltuples, relpages from pg_class where oid = $1::regclass",
    [name],
  ))[0];

/** About 40 rows of 200 bytes a page: `pages` pages' worth of rows. */
const fill = (sql: Sql, table: string, pages: number) =>
  sql.query(`insert into ${table} select i, repeat('x', 200) from generate_series(1, $1) i`, [
    pages * 40,
  ]);

Deno.test("a fresh database's empty tables are not analyzed; a table of 8 pages is, once, until it doubles", async () => {
  const sql = await openMigrated();
  try {
    assert.deepEqual(await refreshStaleStatistics(sql), []);
    assert.equal((await relation(sql, "chat_messages")).reltuples, -1, "never analyzed");
    await sql.exec("create table statistics_probe (id int, body text)");
    await fill(sql, "statistics_probe", 2);
    assert.deepEqual(await refreshStaleStatistics(sql), [], "under 8 pages");
    await fill(sql, "statistics_probe", 10);
    assert.deepEqual(await refreshStaleStatistics(sql), ["statistics_probe"]);
    const analyzed = await relation(sql, "statistics_probe");
    assert.equal(analyzed.reltuples, 12 * 40);
    await fill(sql, "statistics_probe", 2);
    assert.deepEqual(await refreshStaleStatistics(sql), [], "grown by a sixth: kept");
    await fill(sql, "statistics_probe", 20);
    assert.deepEqual(await refreshStaleStatistics(sql), ["statistics_probe"], "doubled");
    assert.equal((await relation(sql, "statistics_probe")).reltuples, 34 * 40);
  } finally {
    await sql.close();
  }
});

Deno.test("the kept statistics are checked every N statements, in the background, and on close", async () => {
  const sql = await openMigrated();
  const logger = new RecordingLogger();
  const kept = keepStatistics(sql, logger, { every: 3 });
  let closed = false;
  try {
    await kept.exec("create table statistics_kept (id int, body text)");
    await fill(kept, "statistics_kept", 10); // statement 1
    await kept.query("select 1"); // 2
    assert.equal((await relation(sql, "statistics_kept")).reltuples, -1, "not yet checked");
    await kept.transaction((tx) => tx.query("select 1")); // 3: a check starts
    await kept.settled();
    assert.equal((await relation(sql, "statistics_kept")).reltuples, 400);
    assert.deepEqual(logger.entries.map((entry) => entry.fields?.tables), [["statistics_kept"]]);
    await fill(sql, "statistics_kept", 20); // not through `kept`: no check
    await kept.close();
    closed = true;
  } finally {
    if (!closed) await sql.close();
  }
  assert.equal(logger.entries.length, 2, "the close refreshed the doubled table");
  assert.deepEqual(logger.entries[1].fields?.tables, ["statistics_kept"]);
});

Deno.test("a failed check is logged as a warning; the statements go on", async () => {
  const logger = new RecordingLogger();
  const failing: Sql = {
    query: (text) =>
      text.includes("pg_relation_size")
        ? Promise.reject(new Error("no catalog"))
        : Promise.resolve([]),
    exec: () => Promise.resolve(),
    transaction: (fn) => fn(failing),
    close: () => Promise.resolve(),
  };
  const kept = keepStatistics(failing, logger, { every: 1 });
  assert.deepEqual(await kept.query("select 1"), []);
  await kept.settled();
  await kept.close();
  assert.deepEqual(logger.entries.map((entry) => entry.level), ["warn", "warn"]);
});
