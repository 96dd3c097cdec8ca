/**
 * An `Sql` that opens its database on first use, so the app answers (and
 * reports health) while PGlite starts or Postgres is unreachable. A failed
 * open is retried, but not more than once every `retryAfterMs`: in between,
 * calls fail at once.
 */
import { AppError } from "../errors.ts";
import type { Sql, SqlTx } from "../ports.ts";

/** An `Sql` whose database may still be opening. */
export interface LazySql extends Sql {
  /** The opened database (opening it if needed). */
  ready(): Promise<Sql>;
}

/** Wraps `open` as a {@link LazySql}. */
export function lazySql(
  open: () => Promise<Sql>,
  { retryAfterMs = 1_000, now = Date.now }: { retryAfterMs?: number; now?: () => number } = {},
): LazySql {
  let opening: Promise<Sql> | undefined;
  let failedAt = -Infinity;
  let closed = false;
  const ready = (): Promise<Sql> => {
    if (closed) {
      return Promise.reject(new AppError("DB_UNAVAILABLE", "The database has been closed"));
    }
    if (opening) return opening;
    if (now() - failedAt < retryAfterMs) {
      return Promise.reject(
        new AppError("DB_UNAVAILABLE", "The database is not reachable; retrying shortly"),
      );
    }
    const attempt = open();
    opening = attempt;
    attempt.catch(() => {
      if (opening === attempt) opening = undefined;
      failedAt = now();
    });
    return attempt;
  };
  return {
    ready,
    query: async (text, params) => (await ready()).query(text, params),
    exec: async (script) => (await ready()).exec(script),
    transaction: async <T>(fn: (tx: SqlTx) => Promise<T>) => (await ready()).transaction(fn),
    close: async () => {
      closed = true;
      const sql = await opening?.catch(() => undefined);
      await sql?.close();
    },
  };
}
