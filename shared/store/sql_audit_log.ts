/**
 * The audit trail of MCP tool calls in `mcp_events`, with group commit: calls
 * arriving within a couple of milliseconds share one INSERT, and each call's
 * promise settles only once its row is committed. Throughput stays high and no
 * acknowledged row is lost.
 */
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

  constructor(
    sql: Sql,
    { maxBatch = 200, maxDelayMs = 2 }: { maxBatch?: number; maxDelayMs?: number } = {},
  ) {
    this.#sql = sql;
    this.#maxBatch = maxBatch;
    this.#maxDelayMs = maxDelayMs;
  }

  record(caller: Caller, events: AuditEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#queue.push({ caller, events, resolve, reject });
      if (this.#queue.length >= this.#maxBatch) this.flush();
      else this.#timer ??= setTimeout(() => this.flush(), this.#maxDelayMs);
    });
  }

  /** Writes everything queued now (one INSERT per caller). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#queue;
    this.#queue = [];
    const byCaller = new Map<string, Pending[]>();
    for (const pending of batch) {
      const key = `${pending.caller.owner}\u0000${pending.caller.userId ?? ""}`;
      byCaller.set(key, [...(byCaller.get(key) ?? []), pending]);
    }
    return Promise.all([...byCaller.values()].map((group) => this.#write(group))).then(() => {});
  }

  async #write(group: Pending[]): Promise<void> {
    const { caller } = group[0];
    const rows = group.flatMap((pending) => pending.events.map(eventToJson));
    try {
      await asCaller(this.#sql, caller, (db) =>
        db.query(
          `insert into public.mcp_events
             (caller, source, session_id, request_id, tool, input, output, success, error, duration_ms)
           select $1, 'mcp', null, e.request_id, e.tool, e.input, e.output, e.success, e.error, e.duration_ms
           from jsonb_to_recordset($2::jsonb) as e(
             request_id text, tool text, input jsonb, output jsonb,
             success boolean, error text, duration_ms double precision
           )`,
          [caller.owner, `[${rows.join(",")}]`],
        ));
      for (const pending of group) pending.resolve();
    } catch (error) {
      for (const pending of group) pending.reject(error);
    }
  }
}
