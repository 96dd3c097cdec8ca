/**
 * Refinement loops in Postgres (`refinement_loops`), scoped to the caller's
 * owner key (and to the user by RLS). Updates lock the row, so concurrent
 * decisions on one loop run one after another and every score is kept; each
 * update also bumps `version`.
 */
import type { Caller, Sql } from "../ports.ts";
import type { LoopState, LoopType, RefinementStore } from "./refinement_store_port.ts";
import { LoopAlreadyExistsError, LoopNotFoundError } from "../errors.ts";
import { asCaller } from "./as_caller.ts";
import { toIso } from "./sql_values.ts";

interface LoopRow {
  id: string;
  loop_type: LoopType;
  status: LoopState["status"];
  current_score: number | null;
  score_history: number[] | string;
  iteration: number;
  threshold: number;
  max_iterations: number;
  version: number;
  created_at: unknown;
  updated_at: unknown;
}

const COLUMNS =
  "id, loop_type, status, current_score, score_history, iteration, threshold, max_iterations, version, created_at, updated_at";

/** A new loop id: 8 lowercase hex characters from a secure random source. */
export function randomLoopId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** {@link RefinementStore} over the `Sql` port. */
export class SqlRefinementStore implements RefinementStore {
  readonly #sql: Sql;
  readonly #newId: () => string;
  readonly #idAttempts: number;

  constructor(
    sql: Sql,
    { newId = randomLoopId, idAttempts = 5 }: { newId?: () => string; idAttempts?: number } = {},
  ) {
    this.#sql = sql;
    this.#newId = newId;
    this.#idAttempts = idAttempts;
  }

  async create(
    caller: Caller,
    { loopType, threshold, maxIterations }: {
      loopType: LoopType;
      threshold: number;
      maxIterations: number;
    },
  ): Promise<LoopState> {
    let id = "";
    for (let attempt = 0; attempt < this.#idAttempts; attempt++) {
      id = this.#newId();
      const rows = await asCaller(this.#sql, caller, (db) =>
        db.query<LoopRow>(
          `insert into public.refinement_loops (id, owner, loop_type, status, threshold, max_iterations)
           values ($1, $2, $3, 'initialized', $4, $5)
           on conflict (id) do nothing
           returning ${COLUMNS}`,
          [id, caller.owner, loopType, threshold, maxIterations],
        ));
      if (rows.length > 0) return toState(rows[0]);
    }
    throw new LoopAlreadyExistsError(id);
  }

  async get(caller: Caller, id: string): Promise<LoopState> {
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query<LoopRow>(
        `select ${COLUMNS} from public.refinement_loops where id = $1 and owner = $2`,
        [id, caller.owner],
      ));
    if (rows.length === 0) throw new LoopNotFoundError(id);
    return toState(rows[0]);
  }

  update(caller: Caller, id: string, change: (state: LoopState) => LoopState): Promise<LoopState> {
    return asCaller(this.#sql, caller, async (db) => {
      const [row] = await db.query<LoopRow>(
        `select ${COLUMNS} from public.refinement_loops where id = $1 and owner = $2 for update`,
        [id, caller.owner],
      );
      if (!row) throw new LoopNotFoundError(id);
      const next = change(toState(row));
      const [updated] = await db.query<LoopRow>(
        `update public.refinement_loops
         set status = $3, current_score = $4, score_history = $5::text::integer[], iteration = $6,
             version = version + 1, updated_at = clock_timestamp()
         where id = $1 and version = $2
         returning ${COLUMNS}`,
        [
          id,
          row.version,
          next.status,
          next.currentScore,
          `{${next.scoreHistory.join(",")}}`,
          next.iteration,
        ],
      );
      // The row is locked, so the version cannot have moved; checked anyway.
      if (!updated) throw new LoopNotFoundError(id);
      return toState(updated);
    }, { transaction: true });
  }

  async listRecent(caller: Caller, limit: number): Promise<LoopState[]> {
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query<LoopRow>(
        `select ${COLUMNS} from public.refinement_loops where owner = $1
         order by seq desc limit $2`,
        [caller.owner, limit],
      ));
    return rows.map(toState);
  }

  async findIds(caller: Caller, prefix: string, limit: number): Promise<string[]> {
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query<{ id: string }>(
        `select id from public.refinement_loops where owner = $1 and starts_with(id, $2)
         order by seq desc limit $3`,
        [caller.owner, prefix, limit],
      ));
    return rows.map((row) => row.id);
  }
}

function toState(row: LoopRow): LoopState {
  return {
    id: row.id,
    loopType: row.loop_type,
    status: row.status,
    currentScore: row.current_score,
    scoreHistory: parseIntArray(row.score_history),
    iteration: row.iteration,
    threshold: row.threshold,
    maxIterations: row.max_iterations,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

/** An integer[] column from either driver (an array, or the text form `{1,2}`). */
function parseIntArray(value: number[] | string): number[] {
  if (Array.isArray(value)) return value.map(Number);
  const inner = value.replace(/^\{|\}$/g, "");
  return inner ? inner.split(",").map(Number) : [];
}
