/**
 * Runs statements as the caller. A verified user's statements run in a
 * transaction as the `authenticated` role with their JWT claims set, so row
 * level security applies exactly as it does for supabase-js callers.
 */
import type { Caller, Sql, SqlQueryable } from "../ports.ts";

/**
 * Calls `fn` with a queryable that acts as `caller`; in one transaction when
 * the caller is a user or when `transaction` is set.
 */
export function asCaller<T>(
  sql: Sql,
  caller: Caller,
  fn: (db: SqlQueryable) => Promise<T>,
  { transaction = false }: { transaction?: boolean } = {},
): Promise<T> {
  if (!caller.userId) return transaction ? sql.transaction(fn) : fn(sql);
  const claims = JSON.stringify({ role: "authenticated", ...caller.claims, sub: caller.userId });
  return sql.transaction(async (tx) => {
    await tx.query(
      "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
      [claims],
    );
    return await fn(tx);
  });
}
