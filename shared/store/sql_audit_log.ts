/**
 * The audit trail of MCP tool calls in `mcp_events`, written in batches: rows
 * queue for up to 20 ms (or until a batch is full) and share one
 * INSERT per caller. Each `record` promise settles when its rows are
 * committed; `flush` waits for everything queued. On Supabase's edge runtime
 * pending writes are kept alive past the response with `EdgeRuntime.waitUntil`.
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
  #writing: Promise<void> = Promise.resolve();

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
    if (this.#queue.length >= this.#maxBatch) this.#startWrite();
    else this.#timer ??= setTimeout(() => this.#startWrite(), this.#maxDelayMs);
    keepAlive(written);
    return written;
  }

  async flush(): Promise<void> {
    if (this.#queue.length > 0) this.#startWrite();
    await this.#writing;
  }

  /** Takes the queue as one batch, written after the batches before it. */
  #startWrite(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    this.#writing = this.#writing.then(() => this.#writeBatch(batch));
  }

  /** One INSERT per caller in the batch; failures reject that caller's promises. */
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
    const rows = group.flatMap((pending) => pending.events.map(eventToJson));
    try {
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
