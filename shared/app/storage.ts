/**
 * Opens the configured database (PGlite by a dynamic import no bundler follows, or Postgres) and
 * chooses the conversation store; the Supabase API store (PostgREST RPC with
 * `fetch`) is loaded only by deployments that store conversations through it.
 */
import type { Config } from "../config/config.ts";
import { describeError } from "../errors.ts";
import type { ConversationStore, Logger, Sql } from "../ports.ts";
import {
  applyMigrations,
  assertSchema,
  MIGRATIONS_DIR,
  readMigrationsToApply,
} from "../store/migrations.ts";
import { SqlConversationStore } from "../store/sql_conversation_store.ts";
import { keepStatistics, refreshStaleStatistics } from "../store/table_statistics.ts";
import { onFirstUse } from "./on_first_use.ts";

/** What `openDatabase` uses of the PGlite adapter's module, `pglite_worker_sql.ts`. */
export interface PgliteAdapterModule {
  PgliteWorkerSql: { open(options: { dataDir: string }): Promise<Sql> };
}

/**
 * The PGlite adapter, by a specifier held in a variable. Supabase's bundler
 * follows literal and template-literal specifiers (and then takes PGlite's
 * whole 26 MB package); the CLI's upload walk reads literal ones, type
 * imports included. This one neither follows, so PGlite stays out of the
 * deployed function (tests/deploy/bundle_test.ts). Deno loads it at run time,
 * which needs read access to the file (`deno task start` has it).
 */
function loadPgliteAdapter(): Promise<PgliteAdapterModule> {
  const specifier: string = import.meta.resolve("../adapters/pglite/pglite_worker_sql.ts");
  return import(specifier);
}

/**
 * Opens the database and prepares it: applies the migrations when configured
 * to, else checks that someone did (`supabase db push` on Supabase).
 */
export async function openDatabase(
  config: Config,
  logger: Logger,
  options: { migrationsDir?: URL } = {},
): Promise<Sql> {
  const started = performance.now();
  let sql: Sql;
  if (config.database.kind === "postgres") {
    const { PostgresSql } = await import("../adapters/postgres/postgres_sql.ts");
    sql = new PostgresSql({ url: config.database.url, max: config.database.maxConnections });
  } else {
    // In a worker thread, so SQL never blocks the thread that serves requests.
    const { PgliteWorkerSql } = await loadPgliteAdapter();
    sql = await PgliteWorkerSql.open({ dataDir: config.database.dataDir });
  }
  try {
    sql = await prepareDatabase(sql, config, logger, options);
  } catch (error) {
    // Nothing half-open is left behind for the next attempt to race with.
    await sql.close().catch(() => {});
    logger.error("could not prepare the database", { error: describeError(error) });
    throw error;
  }
  logger.info("database ready", {
    kind: config.database.kind,
    ms: Math.round(performance.now() - started),
  });
  return sql;
}

/**
 * Applies the migrations (`config.migrate`) or checks the schema is there;
 * returns the `Sql` to use (for PGlite, one that refreshes statistics on close).
 */
export async function prepareDatabase(
  sql: Sql,
  config: Config,
  logger: Logger,
  { migrationsDir = MIGRATIONS_DIR }: { migrationsDir?: URL } = {},
): Promise<Sql> {
  let applied: string[] = [];
  if (config.migrate) {
    applied = await applyMigrations(sql, {
      migrations: await readMigrationsToApply(migrationsDir),
    });
    if (applied.length > 0) logger.info("applied migrations", { versions: applied });
  } else {
    await assertSchema(sql);
  }
  if (config.database.kind !== "pglite") return sql;
  // PGlite runs no autovacuum: stale statistics are refreshed now, as the tables grow and on
  // close (table_statistics.ts); a fresh database's empty tables are left unanalyzed.
  const analyzed = await refreshStaleStatistics(sql);
  if (analyzed.length > 0) logger.info("refreshed statistics", { tables: analyzed });
  return keepStatistics(sql, logger);
}

/** The conversation store the configuration asks for. */
export function createConversationStore(config: Config, sql: Sql): ConversationStore {
  const { store: storeConfig, memory } = config;
  if (storeConfig.kind === "sql") return new SqlConversationStore(sql, memory);
  return onFirstUse(
    () =>
      import("../adapters/supabase/supabase_conversation_store.ts").then(
        ({ SupabaseConversationStore }) =>
          new SupabaseConversationStore({ ...storeConfig, memory, sql }),
      ),
    ["loadContext", "saveTurn", "listMessages", "listSessions", "messagesByIds"],
  );
}
