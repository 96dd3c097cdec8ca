/**
 * An `Sql` that opens its database on first use, so the app answers (and
 * reports health) while PGlite starts or Postgres is unreachable. A failed
 * open is retried, but not more than once every `retryAfterMs`: in between,
 * calls fail at once.
 */
import { AppError, isAppError } from "../errors.ts";
import type { Sql, SqlTx } from "../ports.ts";

/** Where a lazily opened database stands. */
export type LazySqlState = "closed" | "opening" | "open" | "failed";

/** An `Sql` whose database may still be opening. */
export interface LazySql extends Sql {
  /** The opened database (opening it if needed). */
  ready(): Promise<Sql>;
  /** Where it stands now, without waiting: health answers at once with it. */
  state(): LazySqlState;
}

/** Wraps `open` as a {@link LazySql}. */
export function lazySql(
  open: () => Promise<Sql>,
  { retryAfterMs = 1_000, now = Date.now, closeWaitMs = 5_000 }: {
    retryAfterMs?: number;
    now?: () => number;
    /** Longest `close` waits for an open in progress. */
    closeWaitMs?: number;
  } = {},
): LazySql {
  let opening: Promise<Sql> | undefined;
  let opened = false;
  let failedAt = -Infinity;
  let failure: unknown;
  let closed = false;
  const ready = (): Promise<Sql> => {
    if (closed) {
      return Promise.reject(new AppError("DB_UNAVAILABLE", "The database has been closed"));
    }
    if (opening) return opening;
    if (now() - failedAt < retryAfterMs) {
      // Our own errors say what to do (run `supabase db push`, fix a setting): repeat them.
      return Promise.reject(
        isAppError(failure)
          ? failure
          : new AppError("DB_UNAVAILABLE", "The database is not reachable; retrying shortly"),
      );
    }
    const attempt = open();
    opening = attempt;
    attempt.then(() => opened = true, (error) => {
      if (opening === attempt) opening = undefined;
      failedAt = now();
      failure = error;
    });
    return attempt;
  };
  return {
    ready,
    state: () => stateOf({ closed, opened, opening: opening !== undefined, failedAt }),
    query: async (text, params) => (await ready()).query(text, params),
    exec: async (script) => (await ready()).exec(script),
    transaction: async <T>(fn: (tx: SqlTx) => Promise<T>) => (await ready()).transaction(fn),
    close: async () => {
      closed = true;
      await closeOnceOpen(opening, closeWaitMs);
    },
  };
}

/** Where the database stands, from what {@link lazySql} knows of it. */
function stateOf(
  { closed, opened, opening, failedAt }: {
    closed: boolean;
    opened: boolean;
    opening: boolean;
    failedAt: number;
  },
): LazySqlState {
  if (closed) return "closed";
  if (opened) return "open";
  if (opening) return "opening";
  return failedAt > -Infinity ? "failed" : "closed";
}

/**
 * Closes the database an open in progress yields. It gets `waitMs` to finish,
 * so it closes cleanly; a process that must exit does not wait for an open that hangs.
 */
async function closeOnceOpen(opening: Promise<Sql> | undefined, waitMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<undefined>((resolve) =>
    timer = setTimeout(() => resolve(undefined), waitMs)
  );
  const sql = await Promise.race([opening?.catch(() => undefined), gaveUp]);
  clearTimeout(timer);
  await sql?.close();
}
