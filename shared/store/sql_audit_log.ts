/**
 * The audit trail of MCP tool calls in `mcp_events`, written in batches with
 * group commit: a batch goes out when it is full (500 rows) or when its oldest
 * row has waited 20 ms, one INSERT per caller, and never while another write
 * is in flight — rows that arrive meanwhile go out in the next write, as soon
 * as it finishes if they have waited long enough. So the number of writes in
 * flight stays at one and the queue cannot fall behind under load (with a
 * batch per 20 ms chained after the one before, a busy server queued rows for
 * over a second and kept every request's objects alive with them), while
 * under load the database sees a few large writes rather than many small
 * ones: starting the next write the moment one ended kept the PGlite worker
 * at 33–37% of a core for 6,000 calls/s, waiting out the 20 ms at 16–21%.
 * Each `record` promise settles when its rows are committed; `flush` waits
 * for everything queued. Pending writes are handed to `keepAlive` (on
 * Supabase's edge runtime, `EdgeRuntime.waitUntil`), so they outlive the response.
 */
import type { AuditEvent, AuditLog, Caller, Sql } from "../ports.ts";
import { writeAuditRows } from "./audit_rows.ts";

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
  readonly #keepAlive: (work: Promise<unknown>) => void;

  constructor(
    sql: Sql,
    { maxBatch = 500, maxDelayMs = 20, keepAlive = () => {} }: {
      maxBatch?: number;
      maxDelayMs?: number;
      /** Keeps the isolate up until the rows are written (the edge runtime's `waitUntil`). */
      keepAlive?: (work: Promise<unknown>) => void;
    } = {},
  ) {
    this.#sql = sql;
    this.#maxBatch = maxBatch;
    this.#maxDelayMs = maxDelayMs;
    this.#keepAlive = keepAlive;
  }

  record(caller: Caller, events: AuditEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    const written = new Promise<void>((resolve, reject) => {
      this.#queue.push({ caller, events, resolve, reject });
    });
    if (this.#queue.length >= this.#maxBatch) this.#startWrite();
    else {
      // The oldest queued row's deadline; a write in flight leaves it to the write's end.
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.#startWrite();
      }, this.#maxDelayMs);
    }
    this.#keepAlive(written.catch(() => {}));
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
      // A full batch, or rows whose 20 ms passed during the write (their timer has fired).
      if (this.#queue.length >= this.#maxBatch || (this.#queue.length > 0 && !this.#timer)) {
        this.#startWrite();
      }
    });
  }

  /** One INSERT per caller in the batch; failures reject that caller's promises (never this one). */
  async #writeBatch(batch: Pending[]): Promise<void> {
    const byCaller = new Map<string, Pending[]>();
    for (const pending of batch) {
      const [first] = pending.events;
      // One INSERT per writer and origin: rows carry the source and session of their call.
      const key =
        `${pending.caller.owner}\u0000${pending.caller.userId ?? ""}\u0000${first.source}` +
        `\u0000${first.sessionId ?? ""}`;
      const group = byCaller.get(key);
      if (group) group.push(pending);
      else byCaller.set(key, [pending]);
    }
    await Promise.all([...byCaller.values()].map((group) => this.#write(group)));
  }

  /**
   * One INSERT for the group; if it fails, each call's rows are tried on their
   * own, so one call's bad row never costs another call its audit rows.
   */
  async #write(group: Pending[]): Promise<void> {
    try {
      await this.#insert(group);
      for (const pending of group) pending.resolve();
    } catch (error) {
      if (group.length === 1) return group[0].reject(error);
      await Promise.all(
        group.map((pending) => this.#insert([pending]).then(pending.resolve, pending.reject)),
      );
    }
  }

  /** The group's rows as the server, with the caller's verified identity (audit_rows.ts). */
  async #insert(group: Pending[]): Promise<void> {
    const { caller, events: [first] } = group[0];
    await writeAuditRows(this.#sql, caller, first, group.flatMap((pending) => pending.events));
  }
}
