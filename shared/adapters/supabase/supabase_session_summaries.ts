/**
 * Session summaries (compaction) through Supabase's API: the SQL functions of
 * `supabase/migrations/20261127000000_session_summaries.sql`, called over RPC
 * as the caller (see supabase_rpc.ts), as the SQL store calls them.
 */
import type { Caller } from "../../ports.ts";
import type {
  HistoryMessage,
  SessionSummary,
  SessionSummaryStore,
  SummaryToSave,
} from "../../store/session_summary_store.ts";
import { toSafeText } from "../../store/sql_values.ts";
import { SupabaseRpc, type SupabaseRpcOptions } from "./supabase_rpc.ts";

interface SummaryRow {
  summary: string;
  covered_seq: string | number;
  covered_messages: number;
  version: number;
  covered_recent: string[] | null;
}

/** {@link SessionSummaryStore} over supabase-js RPC calls. */
export class SupabaseSessionSummaryStore implements SessionSummaryStore {
  readonly #rpc: SupabaseRpc;

  constructor(options: SupabaseRpcOptions) {
    this.#rpc = new SupabaseRpc(options);
  }

  async load(
    caller: Caller,
    sessionId: string,
    recentLimit: number,
  ): Promise<SessionSummary | undefined> {
    const rows = await this.#rpc.call<SummaryRow[] | null>(caller, "load_session_summary", {
      p_session_id: toSafeText(sessionId),
      p_owner: caller.owner,
      p_recent_limit: recentLimit,
    }, "read the session's summary");
    const [row] = rows ?? [];
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
    const rows = await this.#rpc.call<
      { id: string; seq: string | number; role: HistoryMessage["role"]; content: string }[] | null
    >(caller, "session_history", {
      p_session_id: toSafeText(sessionId),
      p_owner: caller.owner,
      p_after_seq: afterSeq,
      p_limit: limit,
    }, "read the session's history");
    return (rows ?? []).map(({ id, seq, role, content }) => ({
      id,
      seq: Number(seq),
      role,
      content,
    }));
  }

  async save(caller: Caller, sessionId: string, summary: SummaryToSave): Promise<boolean> {
    const version = await this.#rpc.call<number | null>(caller, "save_session_summary", {
      p_session_id: toSafeText(sessionId),
      p_owner: caller.owner,
      p_summary: toSafeText(summary.summary),
      p_covered_seq: summary.coveredSeq,
      p_covered_messages: summary.coveredMessages,
      p_expected_version: summary.expectedVersion,
    }, "store the session's summary");
    return version !== null && version !== undefined;
  }
}
