/**
 * Applies `supabase/migrations/*.sql` in name order, each once. Applied
 * versions are recorded where the Supabase CLI records them
 * (`supabase_migrations.schema_migrations`), so `supabase db push` and this
 * runner agree. An advisory lock makes two processes starting at once safe.
 */
import { AppError, describeError } from "../errors.ts";
import type { Sql } from "../ports.ts";

/** The project's migrations directory. */
export const MIGRATIONS_DIR = new URL("../../supabase/migrations/", import.meta.url);

/** One migration file. */
export interface Migration {
  version: string;
  name: string;
  sql: string;
}

const LOCK_KEY = 727_431_001;

/** Reads the migrations of `directory`, ordered by file name. */
export async function readMigrations(directory: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(directory)) {
    if (entry.isFile && entry.name.endsWith(".sql")) names.push(entry.name);
  }
  names.sort();
  return await Promise.all(names.map(async (file) => {
    const [version, ...rest] = file.slice(0, -4).split("_");
    return {
      version,
      name: rest.join("_"),
      sql: await Deno.readTextFile(new URL(file, directory)),
    };
  }));
}

/**
 * Reads the migrations for a process that is to apply them; throws CONFIG_INVALID
 * saying what to do when the files are not there (a bundle without them).
 */
export async function readMigrationsToApply(directory: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  try {
    const migrations = await readMigrations(directory);
    if (migrations.length > 0) return migrations;
    throw new Error("the folder has no .sql files");
  } catch (error) {
    throw new AppError(
      "CONFIG_INVALID",
      `Migrating at start is on (option migrate), but the migrations cannot be read from ${
        directory.protocol === "file:" ? decodeURIComponent(directory.pathname) : directory.href
      } (${
        describeError(error)
      }): apply them with \`supabase db push\` (or from a checkout of the project) and turn the option migrate off`,
      { cause: error },
    );
  }
}

/** The tables the stores use, all created by `supabase/migrations/`. */
export const SCHEMA_TABLES = [
  "caller_quota",
  "chat_erasures",
  "chat_messages",
  "mcp_events",
  "mcp_run_events",
  "mcp_runs",
  "mcp_session_requests",
  "mcp_sessions",
  "mcp_tool_approvals",
  "refinement_loops",
  "session_summaries",
  "working_memory",
] as const;

/** The SQL functions the stores call, all created by `supabase/migrations/`. */
export const SCHEMA_FUNCTIONS = [
  "chat_any_lexeme",
  "chat_is_question",
  "chat_lexemes",
  "chat_owner",
  "chat_query_lexemes",
  "chat_query_terms",
  "chat_recall_scope",
  "chat_tsvector",
  "chat_uncommon_lexemes",
  "create_mcp_run",
  "delete_chat_session",
  "export_chat_page",
  "forget_chat_caller",
  "forget_session_summaries",
  "get_chat_messages",
  "get_working_memory",
  "hybrid_match_chat_messages",
  "list_chat_messages",
  "list_chat_sessions",
  "load_chat_context",
  "load_session_state",
  "load_session_summary",
  "mark_chat_erasure",
  "match_chat_messages",
  "put_working_memory",
  "save_chat_turn",
  "save_mcp_run",
  "save_session_summary",
  "scrub_mcp_events",
  "session_history",
  "sweep_mcp_runs",
  "sweep_mcp_sessions",
  "take_caller_quota",
  "write_mcp_events",
] as const;

/**
 * The functions only the server's own role may run (neither `anon` nor
 * `authenticated`): they act on anyone's rows.
 */
export const SERVER_ONLY_FUNCTIONS: readonly (typeof SCHEMA_FUNCTIONS)[number][] = [
  "sweep_mcp_runs",
  "sweep_mcp_sessions",
  "write_mcp_events",
];

/**
 * Checks that the database has what the stores use, for a process that does
 * not apply the migrations itself (on Supabase, `supabase db push` does);
 * throws DB_UNAVAILABLE naming what is missing and what to run.
 */
export async function assertSchema(sql: Sql): Promise<void> {
  const list = (names: readonly string[]) => names.map((name) => `'${name}'`).join(", ");
  // Text, not an array: every driver reads it alike.
  const [{ missing }] = await sql.query<{ missing: string | null }>(`
    select string_agg(item, ', ') as missing from (
      select 'table public.' || t as item from unnest(array[${list(SCHEMA_TABLES)}]) t
      where to_regclass('public.' || t) is null
      union all
      select 'function public.' || f || '()' from unnest(array[${list(SCHEMA_FUNCTIONS)}]) f
      where not exists (
        select 1 from pg_proc p where p.pronamespace = 'public'::regnamespace and p.proname = f
      )
    ) items`);
  if (!missing) return;
  throw new AppError(
    "DB_UNAVAILABLE",
    `The database does not have this function's schema (missing: ${missing}): apply supabase/migrations/ with \`supabase db push\`, or turn the option migrate on where this process can read them`,
    { details: { missing: missing.split(", ") } },
  );
}

/** Whether every migration is recorded as applied (false when the table is not there yet). */
async function hasAll(sql: Sql, migrations: readonly Migration[]): Promise<boolean> {
  try {
    const rows = await sql.query<{ version: string }>(
      "select version from supabase_migrations.schema_migrations",
    );
    const done = new Set(rows.map((row) => row.version));
    return migrations.every((migration) => done.has(migration.version));
  } catch {
    return false;
  }
}

/** Applies the migrations not yet applied; returns the versions it applied. */
export async function applyMigrations(
  sql: Sql,
  { migrations }: { migrations?: Migration[] } = {},
): Promise<string[]> {
  const all = migrations ?? await readMigrations();
  // The common case, a database that has them all: one read, no lock, no DDL.
  if (await hasAll(sql, all)) return [];
  return await sql.transaction(async (tx) => {
    // Taken first, so a second process waits here and then finds everything applied.
    await tx.query("select pg_advisory_xact_lock($1)", [LOCK_KEY]);
    await tx.exec(`
      create schema if not exists supabase_migrations;
      create table if not exists supabase_migrations.schema_migrations (
        version text primary key, statements text[], name text
      );`);
    const rows = await tx.query<{ version: string }>(
      "select version from supabase_migrations.schema_migrations",
    );
    const done = new Set(rows.map((row) => row.version));
    const applied: string[] = [];
    for (const migration of all) {
      if (done.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query(
        "insert into supabase_migrations.schema_migrations (version, name) values ($1, $2)",
        [migration.version, migration.name],
      );
      applied.push(migration.version);
    }
    return applied;
  });
}
