/**
 * The conversation store through Supabase's API (PostgREST RPC with `fetch`,
 * supabase_rpc.ts): the same SQL functions as the SQL store, called as
 * the signed-in user with their JWT, so row level security applies at the
 * API. Anonymous callers go through the project's secret (service role) key.
 * A turn's audit rows are not the API's to write (nothing PostgREST exposes
 * may write one): the server writes them on its own database connection, with
 * the caller's verified identity, once the turn is stored.
 */
import { textSearchConfigFor } from "../../text/text_search_config.ts";
import type {
  Caller,
  ConversationContext,
  ConversationStore,
  LoadContextInput,
  SaveTurnInput,
  SqlQueryable,
  StoredMessage,
} from "../../ports.ts";
import { writeAuditRows } from "../../store/audit_rows.ts";
import {
  contextFromRows,
  type ContextRow,
  DEFAULT_MEMORY_OPTIONS,
  type MemoryOptions,
  semanticWeightFor,
  toStoredMessage,
} from "../../store/sql_conversation_store.ts";
import { toSafeText, toVectorLiteral, uuidsIn } from "../../store/sql_values.ts";
import { SupabaseRpc, type SupabaseRpcOptions } from "./supabase_rpc.ts";

/** Where the project is and which keys to use. */
export interface SupabaseStoreOptions extends SupabaseRpcOptions {
  memory?: Partial<MemoryOptions>;
  /** The server's own database connection, for the turns' audit rows. */
  sql: SqlQueryable;
}

/** {@link ConversationStore} over PostgREST RPC calls (supabase_rpc.ts). */
export class SupabaseConversationStore implements ConversationStore {
  readonly #rpc: SupabaseRpc;
  readonly #memory: MemoryOptions;
  readonly #sql: SqlQueryable;

  constructor(options: SupabaseStoreOptions) {
    this.#rpc = new SupabaseRpc(options);
    this.#memory = { ...DEFAULT_MEMORY_OPTIONS, ...options.memory };
    this.#sql = options.sql;
  }

  async loadContext(
    { caller, sessionId, text, embedding, embeddingModel }: LoadContextInput,
  ): Promise<ConversationContext> {
    const m = this.#memory;
    const rows = await this.#rpc.call<ContextRow[] | null>(caller, "load_chat_context", {
      p_session_id: toSafeText(sessionId),
      p_owner: caller.owner,
      p_query_embedding: toVectorLiteral(embedding),
      p_embedding_model: embeddingModel,
      p_recent_limit: m.recentLimit,
      p_match_count: m.matchCount,
      p_match_threshold: m.matchThreshold,
      p_scope: m.scope,
      p_query_text: text === undefined ? null : toSafeText(text),
      p_full_text_weight: m.fullTextWeight,
      p_semantic_weight: semanticWeightFor(m, embeddingModel),
      p_rrf_k: m.rrfK,
      p_text_config: textSearchConfigFor(text ?? "", m.textSearchConfig),
    }, "load the conversation");
    return contextFromRows(rows ?? []);
  }

  async saveTurn(
    { caller, sessionId, userMessage, assistantMessage, events, runId }: SaveTurnInput,
  ): Promise<void> {
    const messageId = await this.#rpc.call<string | null>(caller, "save_chat_turn", {
      p_run_id: runId ?? null,
      p_session_id: toSafeText(sessionId),
      p_caller: caller.owner,
      p_user_content: toSafeText(userMessage.content),
      p_embedding: toVectorLiteral(userMessage.embedding),
      p_embedding_model: userMessage.embeddingModel,
      p_assistant_content: assistantMessage ? toSafeText(assistantMessage.content) : null,
      p_text_config: textSearchConfigFor(userMessage.content, this.#memory.textSearchConfig),
    }, "store the conversation turn");
    // Null: the run's turn was stored before (its audit rows with it), or its session erased.
    if (messageId) {
      await writeAuditRows(this.#sql, caller, { source: "loop", sessionId }, events);
    }
  }

  async listMessages(caller: Caller, sessionId: string, limit: number): Promise<StoredMessage[]> {
    const rows = await this.#rpc.call<ContextRow[] | null>(caller, "list_chat_messages", {
      p_session_id: toSafeText(sessionId),
      p_owner: caller.owner,
      p_limit: limit,
    }, "list the session's messages");
    return (rows ?? []).map(toStoredMessage);
  }

  async listSessions(caller: Caller, prefix: string, limit: number): Promise<string[]> {
    const rows = await this.#rpc.call<{ session_id: string }[] | null>(
      caller,
      "list_chat_sessions",
      { p_owner: caller.owner, p_prefix: toSafeText(prefix), p_limit: limit },
      "list the sessions",
    );
    return (rows ?? []).map((row) => row.session_id);
  }

  async messagesByIds(caller: Caller, ids: readonly string[]): Promise<StoredMessage[]> {
    const wanted = uuidsIn(ids);
    if (wanted.length === 0) return [];
    const rows = await this.#rpc.call<ContextRow[] | null>(caller, "get_chat_messages", {
      p_owner: caller.owner,
      p_ids: wanted,
    }, "read the recalled messages");
    return (rows ?? []).map(toStoredMessage);
  }
}
