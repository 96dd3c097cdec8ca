/**
 * The audit trail of MCP tool calls in `mcp_events`, written in batches with
 * group commit: rows queue for up to 20 ms (or until a batch is full) and
 * share one INSERT per caller; while a write is in flight, new rows wait and
 * go out together in the next write as soon as it finishes. So the number of
 * writes in flight stays at one and the queue cannot fall behind under load
 * (with a batch per 20 ms chained after the one before, a busy server queued
 * rows for over a second and kept every request's objects alive with them).
 * Each `record` promise settles when its rows are committed; `flush` waits
 * for everything queued. On Supabase's edge runtime pending writes are kept
 * alive past the response with `EdgeRuntime.waitUntil`.
 */
import { keepAlive } from "./keep_alive.ts";
import type { AuditEvent, AuditLog, Caller, Sql } from "../ports.ts";
import { asCaller } from "./as_caller.ts";
import { eventToJson } from "./sql_conversation_store.ts";

interface Pending {
  caller: Caller;
  events: AuditEvent[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** {@link AuditLog} over the `Sql` port. */
export class SqlAuditLog implements AuditLog {
  readonly #sql: Sql;
  readonly #maxBatch: number;
  readonly #maxDelayMs: number;
  #queue: Pending[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The write in flight, if any (at most one). */
  #writing: Promise<void> | undefined;

  constructor(
    sql: Sql,
    { maxBatch = 500, maxDelayMs = 20 }: { maxBatch?: number; maxDelayMs?: number } = {},
  ) {
    this.#sql = sql;
    this.#maxBatch = maxBatch;
    this.#maxDelayMs = maxDelayMs;
  }

  record(caller: Caller, events: AuditEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    const written = new Promise<void>((resolve, reject) => {
      this.#queue.push({ caller, events, resolve, reject });
    });
    // While a write is in flight, its end starts the next one.
    if (!this.#writing) {
      if (this.#queue.length >= this.#maxBatch) this.#startWrite();
      else this.#timer ??= setTimeout(() => this.#startWrite(), this.#maxDelayMs);
    }
    keepAlive(written);
    return written;
  }

  async flush(): Promise<void> {
    while (this.#writing || this.#queue.length > 0) {
      this.#startWrite();
      await this.#writing;
    }
  }

  /** Writes up to a batch of the queue, unless a write is in flight. */
  #startWrite(): void {
    if (this.#writing) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#queue.length === 0) return;
    const batch = this.#queue.splice(0, this.#maxBatch);
    this.#writing = this.#writeBatch(batch).finally(() => {
      this.#writing = undefined;
      // Rows that arrived during the write have waited long enough.
      this.#startWrite();
    });
  }

  /** One INSERT per caller in the batch; failures reject that caller's promises (never this one). */
  async #writeBatch(batch: Pending[]): Promise<void> {
    const byCaller = new Map<string, Pending[]>();
    for (const pending of batch) {
      const key = `${pending.caller.owner}\u0000${pending.caller.userId ?? ""}`;
      const group = byCaller.get(key);
      if (group) group.push(pending);
      else byCaller.set(key, [pending]);
    }
    await Promise.all([...byCaller.values()].map((group) => this.#write(group)));
  }

  async #write(group: Pending[]): Promise<void> {
    const { caller } = group[0];
    try {
      const rows = group.flatMap((pending) => pending.events.map(eventToJson));
      await asCaller(
        this.#sql,
        caller,
        (db) =>
          db.query("select public.record_mcp_events($1, 'mcp', null, $2::jsonb)", [
            caller.owner,
            `[${rows.join(",")}]`,
          ]),
      );
      for (const pending of group) pending.resolve();
    } catch (error) {
      for (const pending of group) pending.reject(error);
    }
  }
}
