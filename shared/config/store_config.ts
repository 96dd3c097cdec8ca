/** Where the data lives: the database, and the store conversations go through. */
import type { EnvReader } from "./env_reader.ts";
import type { ProjectKeys } from "./supabase_settings.ts";

/** Where the data lives. */
export type DatabaseConfig =
  | { kind: "pglite"; dataDir: string }
  | {
    kind: "postgres";
    url: string;
    source: "DATABASE_URL" | "SUPABASE_DB_URL";
    /** Most connections this process (one edge isolate) opens (`MCP_LOOP_DB_MAX_CONNECTIONS`). */
    maxConnections: number;
  };

/** The conversation store. */
export type StoreConfig =
  | { kind: "sql" }
  | {
    kind: "supabase";
    url: string;
    publishableKey: string;
    secretKey?: string;
    /** Replaces `fetch` (tests; never from the environment). */
    fetch?: typeof fetch;
  };

/**
 * The database: Postgres when a URL is set, else PGlite in a data folder.
 * `deployed` (Supabase settings or the edge runtime) lowers the default pool:
 * every isolate holds its own, and a scaled-out function has many isolates.
 */
export function readDatabase(
  reader: EnvReader,
  { deployed }: { deployed: boolean },
): DatabaseConfig {
  const source = reader.string("DATABASE_URL")
    ? "DATABASE_URL" as const
    : reader.string("SUPABASE_DB_URL")
    ? "SUPABASE_DB_URL" as const
    : undefined;
  const maxConnections = reader.int("MCP_LOOP_DB_MAX_CONNECTIONS", {
    fallback: deployed ? 2 : 5,
    min: 1,
    max: 50,
  });
  if (!source) {
    return { kind: "pglite", dataDir: reader.string("MCP_LOOP_DATA_DIR") ?? "./.data/pglite" };
  }
  const url = reader.string(source)!;
  const problem = databaseUrlProblem(url);
  if (problem) reader.problem(`${source} ${problem}`);
  return { kind: "postgres", url, source, maxConnections };
}

/**
 * What is wrong with a Postgres connection URL, if anything. The value is never
 * quoted back: it may hold a password.
 */
export function databaseUrlProblem(url: string): string | undefined {
  const example =
    "like postgresql://postgres.<project-ref>:<password>@aws-0-<region>.pooler.supabase.com:6543/postgres";
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== "postgres" && scheme !== "postgresql") {
    return `must be a Postgres connection URL (postgresql://user:password@host:port/database), ${example}; ${
      scheme ? `its scheme is "${scheme}"` : "the value set is not a URL"
    } (the value is not shown: it may hold a password)`;
  }
  // As postgres.js reads it: several hosts may be listed; the first one stands for them here.
  const authority = url.slice(url.indexOf("://") + 3).split(/[?/#]/)[0];
  const hosts = authority.slice(authority.lastIndexOf("@") + 1);
  let parsed: URL;
  try {
    parsed = new URL(url.replace(hosts, hosts.split(",")[0]));
  } catch {
    return `is not a valid URL: check that a password with @, :, / or # in it is percent-encoded, ${example}`;
  }
  if (!parsed.hostname) return `names no host, ${example}`;
  if (/YOUR[-_]PASSWORD/i.test(safeDecode(parsed.password))) {
    return "still holds the placeholder [YOUR-PASSWORD] of the dashboard's connection string: put the database password there";
  }
  return undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Where conversations are stored (the project's new API keys before the legacy ones). */
export function readStore(reader: EnvReader, keys: ProjectKeys): StoreConfig {
  const kind = reader.oneOf("MCP_LOOP_STORE", ["sql", "supabase"], "sql");
  if (kind === "sql") return { kind };
  const url = reader.string("SUPABASE_URL");
  if (!url || !keys.publishable) {
    reader.problem(
      "MCP_LOOP_STORE=supabase needs SUPABASE_URL and SUPABASE_PUBLISHABLE_KEYS (or SUPABASE_ANON_KEY)",
    );
    return { kind: "sql" };
  }
  return { kind, url, publishableKey: keys.publishable, secretKey: keys.secret };
}
