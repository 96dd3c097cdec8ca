/**
 * Session summaries on Postgres, through the SQL functions of
 * `supabase/migrations/20261127000000_session_summaries.sql` and
 * `…20261128000200_session_state.sql` (so PostgREST
 * callers can use the same code path over RPC), as the caller (row level
 * security for signed-in users).
 */
import type { Caller, Sql } from "../ports.ts";
import { asCaller } from "./as_caller.ts";
import type {
  HistoryMessage,
  SessionSummary,
  SessionSummaryStore,
  SummaryState,
  SummaryToSave,
} from "./session_summary_store.ts";
import { toSafeText } from "./sql_values.ts";

/** A row of `load_session_summary` (a summary) or `load_session_state` (summary columns null without one). */
export interface SummaryRow {
  summary: string | null;
  covered_seq: string | number | null;
  covered_messages: number | null;
  version: number | null;
  covered_recent: string[] | null;
  older_messages?: number | string;
  older_bytes?: number | string;
}

/** The summary a row holds, if it holds one. */
export function toSessionSummary(row: SummaryRow | undefined): SessionSummary | undefined {
  if (!row || row.summary === null) return undefined;
  return {
    summary: row.summary,
    coveredSeq: Number(row.covered_seq),
    coveredMessages: Number(row.covered_messages),
    version: Number(row.version),
    coveredRecentIds: row.covered_recent ?? [],
  };
}

/** A `load_session_state` row as the port's state. */
export function toSummaryState(row: SummaryRow | undefined): SummaryState {
  return {
    summary: toSessionSummary(row),
    older: { messages: Number(row?.older_messages ?? 0), bytes: Number(row?.older_bytes ?? 0) },
  };
}

const SUMMARY_COLUMNS = "summary, covered_seq, covered_messages, version, covered_recent";

/** {@link SessionSummaryStore} over the `Sql` port. */
export class SqlSessionSummaryStore implements SessionSummaryStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async load(
    caller: Caller,
    sessionId: string,
    recentLimit: number,
  ): Promise<SessionSummary | undefined> {
    const [row] = await asCaller(this.#sql, caller, (db) =>
      db.query<SummaryRow>(
        `select ${SUMMARY_COLUMNS} from public.load_session_summary($1, $2, $3)`,
        [toSafeText(sessionId), caller.owner, recentLimit],
      ));
    return toSessionSummary(row);
  }

  async loadState(caller: Caller, sessionId: string, recentLimit: number): Promise<SummaryState> {
    const [row] = await asCaller(this.#sql, caller, (db) =>
      db.query<SummaryRow>(
        `select ${SUMMARY_COLUMNS}, older_messages, older_bytes
         from public.load_session_state($1, $2, $3)`,
        [toSafeText(sessionId), caller.owner, recentLimit],
      ));
    return toSummaryState(row);
  }

  async history(
    caller: Caller,
    sessionId: string,
    { afterSeq, limit }: { afterSeq: number; limit: number },
  ): Promise<HistoryMessage[]> {
    const rows = await asCaller(
      this.#sql,
      caller,
      (db) =>
        db.query<
          { id: string; seq: string | number; role: HistoryMessage["role"]; content: string }
        >(
          "select id, seq, role, content from public.session_history($1, $2, $3, $4)",
          [toSafeText(sessionId), caller.owner, afterSeq, limit],
        ),
    );
    return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
  }

  async save(caller: Caller, sessionId: string, summary: SummaryToSave): Promise<boolean> {
    const [row] = await asCaller(this.#sql, caller, (db) =>
      db.query<{ version: number | null }>(
        "select public.save_session_summary($1, $2, $3, $4, $5, $6) as version",
        [
          toSafeText(sessionId),
          caller.owner,
          toSafeText(summary.summary),
          summary.coveredSeq,
          summary.coveredMessages,
          summary.expectedVersion,
        ],
      ));
    return row?.version !== null && row?.version !== undefined;
  }
}
