import assert from "node:assert/strict";
import { PgliteWorkerSql } from "../../shared/adapters/pglite/pglite_worker_sql.ts";

Deno.test("a dead PGlite worker fails the statements in flight, and the next statement gets a new one", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "mcp-loop-worker-" });
  const sql = await PgliteWorkerSql.open({
    dataDir,
    workerUrl: new URL("../fakes/crashing_pglite_worker.ts", import.meta.url),
  });
  try {
    await sql.exec("create table kept (v int); insert into kept values (1)");
    await assert.rejects(sql.query("select 'crash'"), /the PGlite worker stopped/);
    assert.deepEqual(
      await sql.query("select v from kept"),
      [{ v: 1 }],
      "reopened on the same data dir",
    );
  } finally {
    await sql.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
