/**
 * Runs statements as the caller. A verified user's statements run in a
 * transaction as the `authenticated` role with their JWT claims set, so row
 * level security applies exactly as it does for supabase-js callers.
 */
import { AppError, isAppError } from "../errors.ts";
import type { Caller, Sql, SqlQueryable } from "../ports.ts";

/**
 * Calls `fn` with a queryable that acts as `caller`; in one transaction when
 * the caller is a user or when `transaction` is set.
 */
export async function asCaller<T>(
  sql: Sql,
  caller: Caller,
  fn: (db: SqlQueryable) => Promise<T>,
  { transaction = false }: { transaction?: boolean } = {},
): Promise<T> {
  // What `fn` itself throws (a store's own check, a loop decision) passes through as it is;
  // what the database throws — a statement, the transaction's begin or commit — is masked.
  let own: unknown = undefined;
  const body = async (db: SqlQueryable) => {
    try {
      return await fn(maskingErrors(db));
    } catch (error) {
      own = error;
      throw error;
    }
  };
  try {
    const claims = callerClaims(caller);
    if (claims === undefined) return await (transaction ? sql.transaction(body) : body(sql));
    return await sql.transaction(async (tx) => {
      await tx.query(
        "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
        [claims],
      );
      return await body(tx);
    });
  } catch (error) {
    throw error === own ? error : databaseError(error);
  }
}

/**
 * The JWT claims (`request.jwt.claims`) a verified user's statements run with, as
 * the `authenticated` role; undefined for a caller who is not a signed-in user.
 */
export function callerClaims(caller: Caller): string | undefined {
  if (!caller.userId) return undefined;
  return JSON.stringify({ role: "authenticated", ...caller.claims, sub: caller.userId });
}

/** `db`, whose failed statements throw {@link databaseError}s. */
export function maskingErrors(db: SqlQueryable): SqlQueryable {
  return {
    query: <R>(text: string, params?: unknown[]) =>
      db.query<R>(text, params).catch((error) => {
        throw databaseError(error);
      }),
  };
}

/**
 * A database failure as the client may see it: DB_UNAVAILABLE with the
 * SQLSTATE, never the server's message (it can name tables, policies and
 * values); the original stays as the cause, which the logs show. Our own
 * errors pass through.
 */
export function databaseError(error: unknown): unknown {
  if (isAppError(error)) return error;
  const state = (error as { code?: unknown } | null)?.code;
  const sqlState = typeof state === "string" && /^[0-9A-Z]{5}$/.test(state) ? state : undefined;
  return new AppError(
    "DB_UNAVAILABLE",
    `the database failed the statement${sqlState ? ` (SQLSTATE ${sqlState})` : ""}`,
    { cause: error, details: sqlState ? { sqlState } : undefined },
  );
}
