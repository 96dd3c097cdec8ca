/**
 * Runs in Postgres (`mcp_runs`, `mcp_run_events`), scoped to the caller's
 * owner key and, for signed-in users, by row level security. A change is one
 * statement: the conditional update of the run (its version and status as the
 * writer read them) and the insert of its new events, so a lost race writes
 * nothing. A run's creation and its changes go through SQL functions
 * (`create_mcp_run`, `save_mcp_run`), whose plans the connection keeps.
 */
import type { MCPRequest, RunStatus } from "../contracts.ts";
import type { Caller, Sql } from "../ports.ts";
import { decodeCheckpoint } from "../runs/checkpoint.ts";
import type {
  RunBase,
  RunChange,
  RunEvent,
  RunRecord,
  RunSaved,
  RunStore,
} from "../runs/run_store.ts";
import { asCaller } from "./as_caller.ts";
import { toIso, toJsonb, toVectorLiteral } from "./sql_values.ts";

/** A checkpoint may hold large tool outputs: a run is resumable only if they stay whole. */
const MAX_CHECKPOINT_CHARS = 8_000_000;

interface RunRow {
  id: string;
  session_id: string;
  status: RunStatus;
  stop_reason: string | null;
  request: unknown;
  base: unknown;
  embedding: unknown;
  embedding_model: string | null;
  checkpoint: unknown;
  version: number;
  event_seq: number;
  cancel_requested: boolean;
  lease_until: unknown;
  error: unknown;
  created_at: unknown;
  updated_at: unknown;
}

const COLUMNS =
  "id, session_id, status, stop_reason, request, base, embedding::text as embedding, " +
  "embedding_model, checkpoint, version, event_seq, cancel_requested, lease_until, error, " +
  "created_at, updated_at";

/** {@link RunStore} over the `Sql` port. */
export class SqlRunStore implements RunStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async create(
    caller: Caller,
    { sessionId, request, checkpoint, leaseMs, events = [] }: {
      sessionId: string;
      request: MCPRequest;
      checkpoint: RunRecord["checkpoint"];
      leaseMs: number;
      events?: readonly { type: string; data: unknown }[];
    },
  ): Promise<RunRecord> {
    // Two statements: the events' row level security must see the run's row.
    const rows = await asCaller(this.#sql, caller, async (db) => {
      const created = await db.query<RunRow>(
        `select ${COLUMNS}
         from public.create_mcp_run($1, $2, $3::jsonb, $4::jsonb, $5, $6)`,
        [
          caller.owner,
          sessionId,
          toJsonb(request, MAX_CHECKPOINT_CHARS),
          toJsonb(checkpoint, MAX_CHECKPOINT_CHARS),
          events.length,
          leaseMs,
        ],
      );
      if (events.length > 0) {
        await db.query(
          `insert into public.mcp_run_events (run_id, seq, type, data)
           select $1, e.ordinality::int, e.value ->> 'type', e.value -> 'data'
           from jsonb_array_elements($2::jsonb) with ordinality as e`,
          [created[0].id, eventsJson(events)],
        );
      }
      return created;
    }, { transaction: events.length > 0 });
    return toRecord(rows[0]);
  }

  async get(caller: Caller, id: string): Promise<RunRecord | undefined> {
    if (!UUID.test(id)) return undefined;
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query<RunRow>(
        `select ${COLUMNS} from public.mcp_runs where id = $1 and owner = $2`,
        [id, caller.owner],
      ));
    return rows.length === 0 ? undefined : toRecord(rows[0]);
  }

  async save(caller: Caller, id: string, change: RunChange): Promise<RunSaved | undefined> {
    const events = change.events ?? [];
    const base = change.base;
    const rows = await asCaller(
      this.#sql,
      caller,
      (db) =>
        db.query<{ version: number; event_seq: number; cancel_requested: boolean }>(
          `select version, event_seq, cancel_requested
           from public.save_mcp_run($1, $2, $3, $4::text[], $5, $6::jsonb, $7, $8, $9::jsonb,
                                    $10::jsonb, $11::vector, $12, $13, $14::jsonb)`,
          [
            id,
            caller.owner,
            change.version,
            `{${change.from.join(",")}}`,
            change.status,
            toJsonb(change.checkpoint, MAX_CHECKPOINT_CHARS),
            events.length,
            change.stopReason ?? null,
            change.error ? toJsonb(change.error) : null,
            base
              ? toJsonb({ context: base.context, message: base.message }, MAX_CHECKPOINT_CHARS)
              : null,
            base ? toVectorLiteral(base.embedding) : null,
            base?.embeddingModel ?? null,
            change.leaseMs ?? null,
            eventsJson(events),
          ],
        ),
      // One statement (save_mcp_run, 20261207000000_run_writes.sql): atomic on its own, no
      // transaction's two extra round trips, and its plan kept for the connection.
    );
    if (rows.length === 0) return undefined;
    const [row] = rows;
    return {
      version: Number(row.version),
      eventSeq: Number(row.event_seq),
      cancelRequested: row.cancel_requested,
    };
  }

  async events(caller: Caller, id: string, afterSeq: number, limit: number): Promise<RunEvent[]> {
    if (!UUID.test(id)) return [];
    const rows = await asCaller(
      this.#sql,
      caller,
      (db) =>
        db.query<{ seq: number; type: string; data: unknown }>(
          `select e.seq, e.type, e.data from public.mcp_run_events e
         join public.mcp_runs r on r.id = e.run_id
         where e.run_id = $1 and r.owner = $2 and e.seq > $3
         order by e.seq limit $4`,
          [id, caller.owner, afterSeq, limit],
        ),
    );
    return rows.map((row) => ({ seq: Number(row.seq), type: row.type, data: parsed(row.data) }));
  }

  async requestCancel(caller: Caller, id: string): Promise<RunRecord | undefined> {
    if (!UUID.test(id)) return undefined;
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query<RunRow>(
        `with asked as (
           update public.mcp_runs set cancel_requested = true, updated_at = clock_timestamp()
           where id = $1 and owner = $2
             and status not in ('completed', 'failed', 'cancelled')
           returning ${COLUMNS}
         )
         select * from asked
         union all
         select ${COLUMNS} from public.mcp_runs
         where id = $1 and owner = $2 and not exists (select 1 from asked)`,
        [id, caller.owner],
      ));
    return rows.length === 0 ? undefined : toRecord(rows[0]);
  }

  async sweep(before: Date, limit: number): Promise<number> {
    // The server's own role: a sweep removes anyone's runs past the retention.
    const [row] = await this.#sql.query<{ removed: number }>(
      "select public.sweep_mcp_runs($1::timestamptz, $2) as removed",
      [before.toISOString(), limit],
    );
    return Number(row?.removed ?? 0);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function eventsJson(events: readonly { type: string; data: unknown }[]): string {
  return `[${
    events.map((event) =>
      `{"type":${toJsonb(event.type, 100)},"data":${toJsonb(event.data, MAX_CHECKPOINT_CHARS)}}`
    ).join(",")
  }]`;
}

/** jsonb arrives parsed from both drivers, or as text from some paths. */
function parsed(value: unknown): unknown {
  return typeof value === "string" ? JSON.parse(value) : value;
}

function toRecord(row: RunRow): RunRecord {
  const base = parsed(row.base) as Pick<RunBase, "context" | "message"> | null;
  const embedding = typeof row.embedding === "string"
    ? (JSON.parse(row.embedding) as number[])
    : undefined;
  return {
    id: row.id,
    sessionId: row.session_id,
    status: row.status,
    ...(row.stop_reason ? { stopReason: row.stop_reason } : {}),
    request: parsed(row.request) as MCPRequest,
    ...(base && embedding && row.embedding_model
      ? { base: { ...base, embedding, embeddingModel: row.embedding_model } }
      : {}),
    checkpoint: decodeCheckpoint(row.id, parsed(row.checkpoint)),
    version: Number(row.version),
    eventSeq: Number(row.event_seq),
    cancelRequested: row.cancel_requested,
    ...(row.lease_until ? { leaseUntil: toIso(row.lease_until) } : {}),
    ...(row.error ? { error: parsed(row.error) as RunRecord["error"] } : {}),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}
