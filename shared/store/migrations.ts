/**
 * Applies `supabase/migrations/*.sql` in name order, each once. Applied
 * versions are recorded where the Supabase CLI records them
 * (`supabase_migrations.schema_migrations`), so `supabase db push` and this
 * runner agree. An advisory lock makes two processes starting at once safe.
 */
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
