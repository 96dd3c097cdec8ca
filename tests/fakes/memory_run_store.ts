/**
 * An in-memory `RunStore` for tests, with the SQL store's semantics: runs per
 * owner, conditional writes (version and status), numbered events, a cancel
 * flag. JSON round trips keep it honest about what a checkpoint can hold. The
 * shared run store suite runs against it and against PGlite, so it cannot drift.
 */
import type { MCPRequest } from "../../shared/contracts.ts";
import type { Caller } from "../../shared/ports.ts";
import { toJsonb } from "../../shared/store/sql_values.ts";
import { decodeCheckpoint } from "../../shared/runs/checkpoint.ts";
import { isFinal } from "../../shared/runs/transitions.ts";
import type {
  RunChange,
  RunEvent,
  RunRecord,
  RunSaved,
  RunStore,
} from "../../shared/runs/run_store.ts";

interface Stored {
  owner: string;
  record: RunRecord;
  events: RunEvent[];
}

/** The fake; `runs` is public so tests can look. */
export class MemoryRunStore implements RunStore {
  readonly runs = new Map<string, Stored>();

  create(
    caller: Caller,
    { sessionId, request, checkpoint, leaseMs, events = [] }: {
      sessionId: string;
      request: MCPRequest;
      checkpoint: RunRecord["checkpoint"];
      leaseMs: number;
      events?: readonly { type: string; data: unknown }[];
    },
  ): Promise<RunRecord> {
    const now = new Date().toISOString();
    const record: RunRecord = {
      id: crypto.randomUUID(),
      sessionId,
      status: "running",
      request: json(request),
      checkpoint: json(checkpoint),
      version: 1,
      eventSeq: events.length,
      cancelRequested: false,
      leaseUntil: new Date(Date.now() + leaseMs).toISOString(),
      createdAt: now,
      updatedAt: now,
    };
    this.runs.set(record.id, {
      owner: caller.owner,
      record,
      events: events.map((event, i) => ({ seq: i + 1, ...json(event) })),
    });
    return Promise.resolve(json(record));
  }

  get(caller: Caller, id: string): Promise<RunRecord | undefined> {
    const stored = this.#own(caller, id);
    return Promise.resolve(stored ? read(stored.record) : undefined);
  }

  save(caller: Caller, id: string, change: RunChange): Promise<RunSaved | undefined> {
    const stored = this.#own(caller, id);
    const record = stored?.record;
    if (!record || record.version !== change.version || !change.from.includes(record.status)) {
      return Promise.resolve(undefined);
    }
    const events = change.events ?? [];
    for (const event of events) {
      stored.events.push({ seq: stored.events.length + 1, ...json(event) });
    }
    const { leaseUntil: _lease, stopReason: _stop, error: _error, ...rest } = record;
    stored.record = {
      ...rest,
      status: change.status,
      checkpoint: json(change.checkpoint),
      version: record.version + 1,
      eventSeq: record.eventSeq + events.length,
      ...(change.stopReason ? { stopReason: change.stopReason } : {}),
      ...(change.error ? { error: change.error } : {}),
      // Stored vectors are 1536-d, zero-padded, as the SQL store keeps them.
      ...(change.base
        ? {
          base: json({
            ...change.base,
            embedding: Array.from({ length: 1536 }, (_, i) => change.base!.embedding[i] ?? 0),
          }),
        }
        : {}),
      ...(change.leaseMs === undefined
        ? {}
        : { leaseUntil: new Date(Date.now() + change.leaseMs).toISOString() }),
      updatedAt: new Date().toISOString(),
    };
    return Promise.resolve({
      version: stored.record.version,
      eventSeq: stored.record.eventSeq,
      cancelRequested: stored.record.cancelRequested,
    });
  }

  events(caller: Caller, id: string, afterSeq: number, limit: number): Promise<RunEvent[]> {
    const stored = this.#own(caller, id);
    return Promise.resolve(
      (stored?.events ?? []).filter((event) => event.seq > afterSeq).slice(0, limit).map(json),
    );
  }

  requestCancel(caller: Caller, id: string): Promise<RunRecord | undefined> {
    const stored = this.#own(caller, id);
    if (!stored) return Promise.resolve(undefined);
    if (!isFinal(stored.record.status)) stored.record = { ...stored.record, cancelRequested: true };
    return Promise.resolve(read(stored.record));
  }

  sweep(before: Date, limit: number): Promise<number> {
    const old = [...this.runs.values()]
      .filter(({ record }) =>
        Date.parse(record.updatedAt) < +before &&
        (record.status !== "running" || Date.parse(record.leaseUntil ?? "") < +before ||
          record.leaseUntil === undefined)
      )
      .sort((a, b) => Date.parse(a.record.updatedAt) - Date.parse(b.record.updatedAt))
      .slice(0, limit);
    for (const { record } of old) this.runs.delete(record.id);
    return Promise.resolve(old.length);
  }

  #own(caller: Caller, id: string): Stored | undefined {
    const stored = this.runs.get(id);
    return stored?.owner === caller.owner ? stored : undefined;
  }
}

/** A stored run as the SQL store reads it: a copy, its checkpoint decoded as any version. */
function read(record: RunRecord): RunRecord {
  const copy = json(record);
  return { ...copy, checkpoint: decodeCheckpoint(copy.id, copy.checkpoint) };
}

/** A copy through the jsonb text the SQL store writes, as the database would give it back. */
function json<T>(value: T): T {
  return JSON.parse(toJsonb(value, 8_000_000));
}
