/**
 * The conversation store on Postgres + pgvector, through the SQL functions of
 * `supabase/migrations/` (`load_chat_context`, `save_chat_turn`): one round
 * trip to read a turn's context, one atomic statement to store the turn.
 */
import type {
  AuditEvent,
  Caller,
  ConversationContext,
  ConversationStore,
  LoadContextInput,
  SaveTurnInput,
  SemanticMatch,
  Sql,
  StoredMessage,
} from "../ports.ts";
import { asCaller } from "./as_caller.ts";
import { toIso, toJsonb, toSafeText, toVectorLiteral } from "./sql_values.ts";

/** How much memory a turn loads. */
export interface MemoryOptions {
  /** The session's last N messages (default 10). */
  recentLimit: number;
  /** Top-k semantic matches (default 5). */
  matchCount: number;
  /** Lowest cosine similarity of a match (default 0.3). */
  matchThreshold: number;
  /** Search the session only (default), or all of a verified user's sessions. */
  scope: "session" | "user";
}

/** The defaults of {@link MemoryOptions}. */
export const DEFAULT_MEMORY_OPTIONS: Readonly<MemoryOptions> = Object.freeze({
  recentLimit: 10,
  matchCount: 5,
  matchThreshold: 0.3,
  scope: "session",
});

interface ContextRow {
  kind: "recent" | "match";
  id: string;
  session_id: string;
  role: StoredMessage["role"];
  content: string;
  created_at: unknown;
  similarity: number | null;
}

/** {@link ConversationStore} over the `Sql` port. */
export class SqlConversationStore implements ConversationStore {
  readonly #sql: Sql;
  readonly #options: MemoryOptions;

  constructor(sql: Sql, options: Partial<MemoryOptions> = {}) {
    this.#sql = sql;
    this.#options = { ...DEFAULT_MEMORY_OPTIONS, ...options };
  }

  async loadContext(
    { caller, sessionId, embedding, embeddingModel }: LoadContextInput,
  ): Promise<ConversationContext> {
    const { recentLimit, matchCount, matchThreshold, scope } = this.#options;
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query<ContextRow>(
        `select kind, id, session_id, role, content, created_at, similarity
         from public.load_chat_context($1, $2, $3::vector, $4, $5, $6, $7, $8)`,
        [
          toSafeText(sessionId),
          caller.owner,
          toVectorLiteral(embedding),
          embeddingModel,
          recentLimit,
          matchCount,
          matchThreshold,
          scope,
        ],
      ));
    return contextFromRows(rows);
  }

  async saveTurn(
    { caller, sessionId, userMessage, assistantMessage, events, runId }: SaveTurnInput,
  ): Promise<void> {
    const eventsJson = `[${events.map(eventToJson).join(",")}]`;
    await asCaller(this.#sql, caller, (db) =>
      db.query(
        "select public.save_chat_turn($1, $2, $3, $4::vector, $5, $6, $7::jsonb, $8::uuid)",
        [
          toSafeText(sessionId),
          caller.owner,
          toSafeText(userMessage.content),
          toVectorLiteral(userMessage.embedding),
          userMessage.embeddingModel,
          assistantMessage ? toSafeText(assistantMessage.content) : null,
          eventsJson,
          runId ?? null,
        ],
      ));
  }

  async listMessages(caller: Caller, sessionId: string, limit: number): Promise<StoredMessage[]> {
    const rows = await asCaller(
      this.#sql,
      caller,
      (db) =>
        db.query<Omit<ContextRow, "kind" | "similarity">>(
          "select id, session_id, role, content, created_at from public.list_chat_messages($1, $2, $3)",
          [toSafeText(sessionId), caller.owner, limit],
        ),
    );
    return rows.map(toStoredMessage);
  }

  async listSessions(caller: Caller, prefix: string, limit: number): Promise<string[]> {
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query<{ session_id: string }>(
        "select session_id from public.list_chat_sessions($1, $2, $3)",
        [caller.owner, toSafeText(prefix), limit],
      ));
    return rows.map((row) => row.session_id);
  }
}

/** A message row as the loop sees it. */
export function toStoredMessage(
  row: Pick<ContextRow, "id" | "session_id" | "role" | "content" | "created_at">,
): StoredMessage {
  return {
    id: row.id,
    sessionId: row.session_id,
    role: row.role,
    content: row.content,
    createdAt: toIso(row.created_at),
  };
}

/**
 * Splits the rows of `load_chat_context` into recent messages and matches,
 * keeping the database's order (oldest first; best first): timestamps in
 * JavaScript lose the microseconds that order a turn's two messages.
 */
export function contextFromRows(rows: readonly ContextRow[]): ConversationContext {
  const recentMessages: StoredMessage[] = [];
  const semanticMatches: SemanticMatch[] = [];
  for (const row of rows) {
    const message = toStoredMessage(row);
    if (row.kind === "recent") recentMessages.push(message);
    else semanticMatches.push({ ...message, similarity: Number(row.similarity) });
  }
  return { recentMessages, semanticMatches };
}

/** One audit event as the JSON object `save_chat_turn` and `mcp_events` expect. */
export function eventToJson(event: AuditEvent): string {
  // The tool name too: a planner or a client may name a tool that does not exist, with any text.
  return `{"request_id":${toJsonb(event.requestId ?? null)},"tool":${toJsonb(event.tool, 200)},` +
    `"input":${toJsonb(event.input)},"output":${toJsonb(event.output)},` +
    `"success":${event.success},"error":${toJsonb(event.error ?? null)},` +
    `"duration_ms":${Number.isFinite(event.durationMs) ? event.durationMs : 0}}`;
}
