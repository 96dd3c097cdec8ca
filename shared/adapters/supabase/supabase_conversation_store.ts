/**
 * The conversation store through Supabase's API (PostgREST RPC) with
 * `@supabase/supabase-js`: the same SQL functions as the SQL store, called as
 * the signed-in user with their JWT, so row level security applies at the
 * API. Anonymous callers go through the project's secret (service role) key.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { AppError } from "../../errors.ts";
import { createCallerClient } from "./caller_client.ts";
import type {
  Caller,
  ConversationContext,
  ConversationStore,
  LoadContextInput,
  SaveTurnInput,
  StoredMessage,
} from "../../ports.ts";
import {
  contextFromRows,
  DEFAULT_MEMORY_OPTIONS,
  type MemoryOptions,
  toStoredMessage,
} from "../../store/sql_conversation_store.ts";
import { toJsonb, toSafeText, toVectorLiteral } from "../../store/sql_values.ts";

/** Where the project is and which keys to use. */
export interface SupabaseStoreOptions {
  url: string;
  /** The anon/publishable key: every request's `apikey`. */
  publishableKey: string;
  /** The service role/secret key, for callers without a user JWT. */
  secretKey?: string;
  memory?: Partial<MemoryOptions>;
  /** Replaces `fetch` (tests). */
  fetch?: typeof fetch;
}

/** {@link ConversationStore} over supabase-js RPC calls. */
export class SupabaseConversationStore implements ConversationStore {
  readonly #options: SupabaseStoreOptions;
  readonly #memory: MemoryOptions;
  #serviceClient?: SupabaseClient;

  constructor(options: SupabaseStoreOptions) {
    this.#options = options;
    this.#memory = { ...DEFAULT_MEMORY_OPTIONS, ...options.memory };
  }

  async loadContext(
    { caller, sessionId, embedding, embeddingModel }: LoadContextInput,
  ): Promise<ConversationContext> {
    const { recentLimit, matchCount, matchThreshold, scope } = this.#memory;
    const { data, error } = await this.#client(caller).rpc("load_chat_context", {
      p_session_id: toSafeText(sessionId),
      p_owner: caller.owner,
      p_query_embedding: toVectorLiteral(embedding),
      p_embedding_model: embeddingModel,
      p_recent_limit: recentLimit,
      p_match_count: matchCount,
      p_match_threshold: matchThreshold,
      p_scope: scope,
    });
    if (error) throw rpcError("load the conversation", error);
    return contextFromRows(data ?? []);
  }

  async saveTurn(
    { caller, sessionId, userMessage, assistantMessage, events, runId }: SaveTurnInput,
  ): Promise<void> {
    const { error } = await this.#client(caller).rpc("save_chat_turn", {
      p_run_id: runId ?? null,
      p_session_id: toSafeText(sessionId),
      p_caller: caller.owner,
      p_user_content: toSafeText(userMessage.content),
      p_embedding: toVectorLiteral(userMessage.embedding),
      p_embedding_model: userMessage.embeddingModel,
      p_assistant_content: assistantMessage ? toSafeText(assistantMessage.content) : null,
      p_events: events.map((event) => ({
        request_id: event.requestId ?? null,
        tool: toSafeText(event.tool),
        input: JSON.parse(toJsonb(event.input)),
        output: JSON.parse(toJsonb(event.output)),
        success: event.success,
        error: event.error ?? null,
        duration_ms: event.durationMs,
      })),
    });
    if (error) throw rpcError("store the conversation turn", error);
  }

  async listMessages(caller: Caller, sessionId: string, limit: number): Promise<StoredMessage[]> {
    const { data, error } = await this.#client(caller).rpc("list_chat_messages", {
      p_session_id: toSafeText(sessionId),
      p_owner: caller.owner,
      p_limit: limit,
    });
    if (error) throw rpcError("list the session's messages", error);
    return (data ?? []).map(toStoredMessage);
  }

  async listSessions(caller: Caller, prefix: string, limit: number): Promise<string[]> {
    const { data, error } = await this.#client(caller).rpc("list_chat_sessions", {
      p_owner: caller.owner,
      p_prefix: toSafeText(prefix),
      p_limit: limit,
    });
    if (error) throw rpcError("list the sessions", error);
    return (data ?? []).map((row: { session_id: string }) => row.session_id);
  }

  #client(caller: Caller): SupabaseClient {
    const { url, secretKey, fetch } = this.#options;
    if (caller.userId && caller.token) return createCallerClient(this.#options, caller);
    if (!secretKey) {
      throw new AppError(
        "UNAUTHORIZED",
        "This server stores conversations through Supabase's API and needs a signed-in user's JWT",
      );
    }
    this.#serviceClient ??= createClient(url, secretKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      global: { fetch },
    });
    return this.#serviceClient;
  }
}

function rpcError(attempt: string, error: { message: string; code?: string }): AppError {
  return new AppError(
    "DB_UNAVAILABLE",
    `Could not ${attempt} through Supabase: ${error.message}${
      error.code ? ` (${error.code})` : ""
    }`,
  );
}
