/**
 * Runs statements as the caller. A verified user's statements run in a
 * transaction as the `authenticated` role with their JWT claims set, so row
 * level security applies exactly as it does for supabase-js callers.
 */
import type { Caller, Sql, SqlQueryable } from "../ports.ts";

/** Calls `fn` with a queryable that acts as `caller`. */
export function asCaller<T>(
  sql: Sql,
  caller: Caller,
  fn: (db: SqlQueryable) => Promise<T>,
): Promise<T> {
  if (!caller.userId) return fn(sql);
  const claims = JSON.stringify({ role: "authenticated", ...caller.claims, sub: caller.userId });
  return sql.transaction(async (tx) => {
    await tx.query(
      "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
      [claims],
    );
    return await fn(tx);
  });
}
