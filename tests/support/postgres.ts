/**
 * The Postgres of the tests, when one is given (MCP_LOOP_TEST_POSTGRES_URL;
 * .ci/run starts a throwaway cluster where Postgres is installed), migrated.
 * The migrations need pgvector: a server without it (CI's Debian Postgres)
 * skips the tests that need them, with a notice saying why.
 */
import { PostgresSql } from "../../shared/adapters/postgres/postgres_sql.ts";
import type { Sql } from "../../shared/ports.ts";
import { applyMigrations } from "../../shared/store/migrations.ts";

/** The test Postgres, or why there is none. */
export type TestPostgres = { sql: PostgresSql; skip?: undefined } | {
  sql?: undefined;
  skip: string;
};

let opening: Promise<TestPostgres> | undefined;

/** The migrated test Postgres (one per process), or the reason tests on it are skipped. */
export function migratedPostgres(): Promise<TestPostgres> {
  opening ??= open();
  return opening;
}

async function open(): Promise<TestPostgres> {
  const url = Deno.env.get("MCP_LOOP_TEST_POSTGRES_URL");
  if (!url) return { skip: "MCP_LOOP_TEST_POSTGRES_URL is not set" };
  // One connection, opened before any test: the tests share it (and the sanitizers see no new one).
  const sql = new PostgresSql({ url, max: 1 });
  const [{ available }] = await sql.query<{ available: boolean }>(
    "select exists (select 1 from pg_available_extensions where name = 'vector') as available",
  );
  if (!available) {
    await sql.close();
    const skip = "the test Postgres has no pgvector (the migrations need it)";
    console.error(`%cskipping the Postgres tests of the stores: ${skip}`, "color: yellow");
    return { skip };
  }
  await applyMigrations(sql);
  return { sql };
}

/** A suite of tests over a database: its name, how to open the database, and whether to ignore it. */
export type DatabaseSuite = (name: string, open: () => Promise<Sql>, ignore: boolean) => void;

/**
 * Registers `suite` on PGlite (`pglite`, under `pgliteName`) and on the test
 * Postgres (ignored when there is none), then a last test that closes the
 * Postgres connection.
 */
export async function onPgliteAndPostgres(
  suite: DatabaseSuite,
  pglite: () => Promise<Sql>,
  pgliteName = "PGlite",
): Promise<void> {
  suite(pgliteName, pglite, false);
  const postgres = await migratedPostgres();
  suite("Postgres", () => Promise.resolve(postgres.sql!), postgres.sql === undefined);
  Deno.test({
    name: "Postgres: (closing the connection)",
    ignore: postgres.sql === undefined,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => postgres.sql!.close(),
  });
}
