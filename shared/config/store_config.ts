/** Where the data lives: the database, and the store conversations go through. */
import type { EnvReader } from "./env_reader.ts";
import { readKeySet } from "./supabase_settings.ts";

/** Where the data lives. */
export type DatabaseConfig =
  | { kind: "pglite"; dataDir: string }
  | { kind: "postgres"; url: string; source: "DATABASE_URL" | "SUPABASE_DB_URL" };

/** The conversation store. */
export type StoreConfig =
  | { kind: "sql" }
  | { kind: "supabase"; url: string; publishableKey: string; secretKey?: string };

/** The database: Postgres when a URL is set, else PGlite in a data folder. */
export function readDatabase(reader: EnvReader): DatabaseConfig {
  const databaseUrl = reader.string("DATABASE_URL");
  if (databaseUrl) return { kind: "postgres", url: databaseUrl, source: "DATABASE_URL" };
  const supabaseUrl = reader.string("SUPABASE_DB_URL");
  if (supabaseUrl) return { kind: "postgres", url: supabaseUrl, source: "SUPABASE_DB_URL" };
  return { kind: "pglite", dataDir: reader.string("MCP_LOOP_DATA_DIR") ?? "./.data/pglite" };
}

/** Where conversations are stored. */
export function readStore(reader: EnvReader): StoreConfig {
  const kind = reader.oneOf("MCP_LOOP_STORE", ["sql", "supabase"], "sql");
  if (kind === "sql") return { kind };
  const url = reader.string("SUPABASE_URL");
  const publishableKey = reader.string("SUPABASE_ANON_KEY") ??
    readKeySet(reader, "SUPABASE_PUBLISHABLE_KEYS");
  const secretKey = reader.string("SUPABASE_SERVICE_ROLE_KEY") ??
    readKeySet(reader, "SUPABASE_SECRET_KEYS");
  if (!url || !publishableKey) {
    reader.problem(
      "MCP_LOOP_STORE=supabase needs SUPABASE_URL and SUPABASE_ANON_KEY (or SUPABASE_PUBLISHABLE_KEYS)",
    );
    return { kind: "sql" };
  }
  return { kind, url, publishableKey, secretKey };
}
