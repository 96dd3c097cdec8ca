/**
 * Opens the configured database (PGlite by dynamic import, or Postgres) and
 * chooses the conversation store. supabase-js is loaded only by deployments
 * that store conversations through Supabase's API.
 */
import type { Config } from "../config/config.ts";
import { describeError } from "../errors.ts";
import type { ConversationStore, Logger, Sql } from "../ports.ts";
import { applyMigrations } from "../store/migrations.ts";
import { SqlConversationStore } from "../store/sql_conversation_store.ts";

/** Opens the database and applies the migrations when configured to. */
export async function openDatabase(config: Config, logger: Logger): Promise<Sql> {
  const started = performance.now();
  let sql: Sql;
  if (config.database.kind === "postgres") {
    const { PostgresSql } = await import("../adapters/postgres/postgres_sql.ts");
    sql = new PostgresSql({ url: config.database.url });
  } else {
    // In a worker thread, so SQL never blocks the thread that serves requests.
    const { PgliteWorkerSql } = await import("../adapters/pglite/pglite_worker_sql.ts");
    sql = await PgliteWorkerSql.open({ dataDir: config.database.dataDir });
  }
  try {
    const applied = config.migrate ? await applyMigrations(sql) : [];
    if (applied.length > 0) logger.info("applied migrations", { versions: applied });
    if (config.database.kind === "pglite") {
      // PGlite runs no autovacuum: statistics are refreshed after migrations and on close (they
      // are kept on disk), not on every open, where they cost a third of a second.
      if (applied.length > 0) await sql.exec("analyze");
      sql = analyzeOnClose(sql, logger);
    }
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

/** `sql`, whose `close` first refreshes the planner's statistics (for the next start). */
function analyzeOnClose(sql: Sql, logger: Logger): Sql {
  return {
    query: (text, params) => sql.query(text, params),
    exec: (script) => sql.exec(script),
    transaction: (fn) => sql.transaction(fn),
    close: async () => {
      await sql.exec("analyze").catch((error) =>
        logger.warn("could not refresh the statistics before closing", {
          error: describeError(error),
        })
      );
      await sql.close();
    },
  };
}

/** The conversation store the configuration asks for. */
export function createConversationStore(config: Config, sql: Sql): ConversationStore {
  const { store: storeConfig, memory } = config;
  if (storeConfig.kind === "sql") return new SqlConversationStore(sql, memory);
  let loading: Promise<ConversationStore> | undefined;
  const load = () =>
    loading ??= import("../adapters/supabase/supabase_conversation_store.ts").then(
      ({ SupabaseConversationStore }) => new SupabaseConversationStore({ ...storeConfig, memory }),
    );
  return {
    loadContext: async (input) => (await load()).loadContext(input),
    saveTurn: async (input) => (await load()).saveTurn(input),
    listMessages: async (caller, sessionId, limit) =>
      (await load()).listMessages(caller, sessionId, limit),
    listSessions: async (caller, prefix, limit) =>
      (await load()).listSessions(caller, prefix, limit),
  };
}
