/**
 * `Sql` on any Postgres with pgvector (Supabase included) through `npm:postgres`,
 * from `DATABASE_URL` or Supabase's `SUPABASE_DB_URL`. Behind a transaction
 * pooler (Supavisor's port 6543, PgBouncer) it prepares no statements and sends
 * no session settings, which the pooler cannot keep for a client; what the app
 * sets per request is transaction-local (`set_config(…, true)`) and so is safe.
 */
import postgres from "postgres";
import type { Sql, SqlTx } from "../../ports.ts";

/** Connection options. */
export interface PostgresOptions {
  url: string;
  /**
   * Pool size (default 5). Every edge isolate holds its own pool, so a deployed
   * function keeps it at 1–2 (`MCP_LOOP_DB_MAX_CONNECTIONS`).
   */
  max?: number;
  /** Use prepared statements; off behind transaction poolers (Supabase port 6543, pgbouncer). */
  prepare?: boolean;
  /**
   * Server-side limit on one statement (default 15 s), so a stuck statement is
   * rolled back rather than left to commit after its request gave up. Not sent
   * through a transaction pooler, which does not pass startup parameters on.
   */
  statementTimeoutMs?: number;
}

/** `Sql` over a postgres.js pool. */
export class PostgresSql implements Sql {
  readonly #sql: postgres.Sql;

  constructor({ url, max = 5, prepare, statementTimeoutMs = 15_000 }: PostgresOptions) {
    const pooled = usesTransactionPooler(url);
    this.#sql = postgres(withoutPgbouncerFlag(url), {
      max,
      prepare: prepare ?? !pooled,
      ...(pooled ? {} : { connection: { statement_timeout: statementTimeoutMs } }),
      idle_timeout: 20,
      connect_timeout: 5,
      onnotice: () => {},
      // Like PGlite: a string bound to a json/jsonb parameter is JSON text, not a JSON string.
      types: {
        jsonText: {
          to: 3802,
          from: [114, 3802],
          serialize: (value: unknown) => typeof value === "string" ? value : JSON.stringify(value),
          parse: (text: string) => JSON.parse(text),
        },
      },
    });
  }

  async query<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    return [...await this.#sql.unsafe(text, params as postgres.ParameterOrJSON<never>[])] as T[];
  }

  async exec(script: string): Promise<void> {
    await this.#sql.unsafe(script).simple();
  }

  async transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    return await this.#sql.begin((tx) =>
      fn({
        query: async <R>(text: string, params: unknown[] = []) =>
          [...await tx.unsafe(text, params as postgres.ParameterOrJSON<never>[])] as R[],
        exec: async (script: string) => {
          await tx.unsafe(script).simple();
        },
      })
    ) as T;
  }

  close(): Promise<void> {
    return this.#sql.end({ timeout: 5 });
  }
}

/**
 * `?pgbouncer=true` (Prisma's way of saying "transaction pooler") is for us
 * only: postgres.js would send it on as a startup parameter, which Postgres and
 * PgBouncer refuse ("unrecognized configuration parameter").
 */
function withoutPgbouncerFlag(url: string): string {
  return url.replace(
    /([?&])pgbouncer=[^&#]*(&|(?=#)|$)/,
    (_, before: string, after: string) => after === "&" ? before : "",
  ).replace(/\?(?=#|$)/, "");
}

/** Supabase's pooler in transaction mode (port 6543) and pgbouncer cannot keep prepared statements. */
export function usesTransactionPooler(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.port === "6543" || parsed.searchParams.get("pgbouncer") === "true";
  } catch {
    return false;
  }
}
