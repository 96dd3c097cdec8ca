/**
 * Per-caller counts per minute in Postgres (`take_caller_quota`), shared by
 * every instance of the function: what `caller_limits.ts` checks first in
 * the process, every instance then checks against the same minute.
 */
import type { Caller, Sql } from "../ports.ts";
import type { SharedQuota } from "./caller_quota_port.ts";
import { asCaller } from "./as_caller.ts";

/** {@link SharedQuota} over the `Sql` port. */
export class SqlCallerQuota implements SharedQuota {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async take(
    caller: Caller,
    { bytes }: { bytes: number },
    limits: { requests: number; bytes: number },
  ): Promise<number> {
    const [row] = await asCaller(this.#sql, caller, (db) =>
      db.query<{ wait: number }>(
        "select public.take_caller_quota($1, $2, $3, $4) as wait",
        [caller.owner, Math.round(bytes), limits.requests, limits.bytes],
      ));
    return Number(row?.wait ?? 0);
  }
}
