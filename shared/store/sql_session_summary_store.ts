/**
 * Session summaries on Postgres, through the SQL functions of
 * `supabase/migrations/20261127000000_session_summaries.sql` (so supabase-js
 * callers can use the same code path over RPC), as the caller (row level
 * security for signed-in users).
 */
import type { Caller, Sql } from "../ports.ts";
import { asCaller } from "./as_caller.ts";
import type {
  HistoryMessage,
  SessionSummary,
  SessionSummaryStore,
  SummaryToSave,
} from "./session_summary_store.ts";
import { toSafeText } from "./sql_values.ts";

interface SummaryRow {
  summary: string;
  covered_seq: string | number;
  covered_messages: number;
  version: number;
  covered_recent: string[] | null;
}

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
        `select summary, covered_seq, covered_messages, version, covered_recent
         from public.load_session_summary($1, $2, $3)`,
        [toSafeText(sessionId), caller.owner, recentLimit],
      ));
    return row && {
      summary: row.summary,
      coveredSeq: Number(row.covered_seq),
      coveredMessages: row.covered_messages,
      version: row.version,
      coveredRecentIds: row.covered_recent ?? [],
    };
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
