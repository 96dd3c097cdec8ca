/**
 * One migrated in-memory PGlite per test process (creating one takes seconds).
 * Tests share it and keep apart by using their own session and user ids.
 */
import { PgliteSql } from "../../shared/adapters/pglite/pglite_sql.ts";
import { applyMigrations } from "../../shared/store/migrations.ts";

let shared: Promise<PgliteSql> | undefined;

/** The process's shared, migrated PGlite. */
export function sharedPglite(): Promise<PgliteSql> {
  shared ??= (async () => {
    const sql = await PgliteSql.open({ dataDir: "memory://" });
    await applyMigrations(sql);
    return sql;
  })();
  return shared;
}
