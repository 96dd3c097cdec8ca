/**
 * `deno task bench:scale`: fills PGlite (100,000 messages by default) and,
 * given a URL, Postgres (1,000,000) with messages of 10,000 users, then
 * measures one user's context load, storing a turn, and the index sizes.
 *
 *   deno task bench:scale                                   # PGlite, 100k
 *   deno task bench:scale --postgres=postgres://…/db        # and Postgres, 1M
 *   deno task bench:scale --only=postgres --postgres=… --postgres-rows=200000
 *
 * A filled database is kept (PGlite in .data/bench-scale-<rows>, Postgres as
 * it is) and reused while its size matches; --rebuild fills it again. The
 * Postgres database needs pgvector, and is emptied: never point it at data
 * you keep.
 */
import { parseArgs } from "node:util";
import { PgliteSql } from "../../shared/adapters/pglite/pglite_sql.ts";
import { PostgresSql } from "../../shared/adapters/postgres/postgres_sql.ts";
import type { Sql } from "../../shared/ports.ts";
import { applyMigrations } from "../../shared/store/migrations.ts";
import { formatTable } from "./harness.ts";
import { scaleBenchmarks } from "./scale_bench.ts";
import { fill, hasData, HEAVY_ROWS, sizes } from "./scale_data.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    postgres: { type: "string" },
    "postgres-rows": { type: "string", default: "1000000" },
    "pglite-rows": { type: "string", default: "100000" },
    users: { type: "string", default: "10000" },
    iterations: { type: "string", default: "500" },
    only: { type: "string" },
    rebuild: { type: "boolean", default: false },
  },
});
const users = Number(values.users);
const log = (line: string) => console.error(line);

async function bench(
  sql: Sql,
  { label, rows, heavy, buildSettings }: {
    label: string;
    rows: number;
    heavy: number;
    buildSettings?: string;
  },
) {
  await applyMigrations(sql);
  let timings: Record<string, number> | undefined;
  if (values.rebuild || !(await hasData(sql, rows, users))) {
    log(`${label}: filling with ${rows} messages of ${users} users and one of ${heavy}...`);
    timings = await fill(sql, { rows, users, heavy, log, buildSettings });
  } else log(`${label}: reusing the filled database`);
  const results = await scaleBenchmarks(sql, { label, iterations: Number(values.iterations) });
  console.log(`\n### ${label}\n\n${formatTable(results)}\n`);
  console.log("| relation | MB |\n|---|---:|");
  for (const [name, mb] of Object.entries(await sizes(sql))) {
    console.log(`| ${name} | ${mb.toFixed(1)} |`);
  }
  if (timings) {
    console.log("\n| building | seconds |\n|---|---:|");
    for (const [name, ms] of Object.entries(timings)) {
      console.log(`| ${name} | ${(ms / 1000).toFixed(1)} |`);
    }
  }
}

if (values.only !== "postgres") {
  const rows = Number(values["pglite-rows"]);
  const sql = await PgliteSql.open({ dataDir: `.data/bench-scale-${rows}` });
  try {
    await bench(sql, {
      label: `PGlite, ${rows.toLocaleString("en-US")} messages`,
      rows,
      heavy: HEAVY_ROWS.pglite,
      buildSettings: "set maintenance_work_mem = '512MB'; ",
    });
  } finally {
    await sql.close();
  }
}
if (values.only !== "pglite" && values.postgres) {
  const rows = Number(values["postgres-rows"]);
  // One connection while filling, so the build settings apply to the builds.
  const sql = new PostgresSql({ url: values.postgres, max: 1, statementTimeoutMs: 0 });
  try {
    await bench(sql, {
      label: `Postgres, ${rows.toLocaleString("en-US")} messages`,
      rows,
      heavy: HEAVY_ROWS.postgres,
      buildSettings: "set maintenance_work_mem = '8GB'; set max_parallel_maintenance_workers = 1; ",
    });
  } finally {
    await sql.close();
  }
}
