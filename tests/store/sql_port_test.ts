import assert from "node:assert/strict";
import { PostgresSql } from "../../shared/adapters/postgres/postgres_sql.ts";
import { PgliteWorkerSql } from "../../shared/adapters/pglite/pglite_worker_sql.ts";
import { sharedPglite } from "../support/pglite.ts";
import { sqlPortSuite } from "./sql_port_suite.ts";

sqlPortSuite("PgliteSql", sharedPglite);

// A real Postgres, when one is given (.ci/run starts a throwaway cluster if the
// machine has Postgres installed). pgvector is not needed for the port itself.
const url = Deno.env.get("MCP_LOOP_TEST_POSTGRES_URL");
sqlPortSuite(
  "PostgresSql",
  () => Promise.resolve(new PostgresSql({ url: url ?? "postgres://unset" })),
  {
    ignore: !url,
    owned: true,
  },
);

// PGlite in a worker thread, as the app runs it; one instance for the suite.
let worker: Promise<PgliteWorkerSql> | undefined;
sqlPortSuite("PgliteWorkerSql", () => worker ??= PgliteWorkerSql.open({ dataDir: "memory://" }));

Deno.test({
  name: "PostgresSql: a statement running past the statement timeout is cancelled by the server",
  ignore: !url,
  fn: async () => {
    const sql = new PostgresSql({ url: url ?? "postgres://unset", statementTimeoutMs: 200 });
    try {
      await assert.rejects(sql.query("select pg_sleep(2)"), /statement timeout/);
    } finally {
      await sql.close();
    }
  },
});

Deno.test({
  name:
    "PostgresSql: ?pgbouncer=true marks a transaction pooler and is not sent on as a startup parameter",
  ignore: !url,
  fn: async () => {
    const pooled = `${url}${url?.includes("?") ? "&" : "?"}pgbouncer=true`;
    const sql = new PostgresSql({ url: pooled });
    try {
      // Postgres (and PgBouncer) refuse unknown startup parameters.
      assert.deepEqual(await sql.query("select 1 as one"), [{ one: 1 }]);
    } finally {
      await sql.close();
    }
  },
});
