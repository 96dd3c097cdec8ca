/**
 * Session summaries (compaction) through Supabase's API: the SQL functions of
 * `supabase/migrations/20261127000000_session_summaries.sql` (and
 * `…20261128000200_session_state.sql`), called over RPC
 * as the caller (see supabase_rpc.ts), as the SQL store calls them.
 */
import type { Caller } from "../../ports.ts";
import type {
  HistoryMessage,
  SessionSummary,
  SessionSummaryStore,
  SummaryState,
  SummaryToSave,
} from "../../store/session_summary_store.ts";
import {
  type SummaryRow,
  toSessionSummary,
  toSummaryState,
} from "../../store/sql_session_summary_store.ts";
import { toSafeText } from "../../store/sql_values.ts";
import { SupabaseRpc, type SupabaseRpcOptions } from "./supabase_rpc.ts";

/** {@link SessionSummaryStore} over PostgREST RPC calls (supabase_rpc.ts). */
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
    return toSessionSummary(rows?.[0]);
  }

  async loadState(caller: Caller, sessionId: string, recentLimit: number): Promise<SummaryState> {
    const rows = await this.#rpc.call<SummaryRow[] | null>(caller, "load_session_state", {
      p_session_id: toSafeText(sessionId),
      p_owner: caller.owner,
      p_recent_limit: recentLimit,
    }, "read the session's summary");
    return toSummaryState(rows?.[0]);
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
