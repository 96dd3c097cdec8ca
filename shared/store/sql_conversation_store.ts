/**
 * The conversation store on Postgres + pgvector, through the SQL functions of
 * `supabase/migrations/` (`load_chat_context`, `save_chat_turn`): one round
 * trip to read a turn's context, one atomic statement to store the turn — its
 * messages as the caller, then its audit rows as the server (audit_rows.ts).
 */
import type {
  Caller,
  ConversationContext,
  ConversationStore,
  LoadContextInput,
  SaveTurnInput,
  SemanticMatch,
  Sql,
  StoredMessage,
} from "../ports.ts";
import { textSearchConfigFor } from "../text/text_search_config.ts";
import { asCaller, callerClaims, maskingErrors } from "./as_caller.ts";
import { auditParams, eventToJson } from "./audit_rows.ts";
import { toIso, toSafeText, toVectorLiteral, uuidsIn } from "./sql_values.ts";

/** How much memory a turn loads, and how matches are ranked. */
export interface MemoryOptions {
  /** The session's last N messages (default 10). */
  recentLimit: number;
  /** Top-k matches (default 5). */
  matchCount: number;
  /** Lowest cosine similarity of a match found by the vectors (default 0.3; full text has none). */
  matchThreshold: number;
  /** Search the session only (default), or all of a verified user's sessions. */
  scope: "session" | "user";
  /** Weight of the full-text ranking in the fusion (default 1; 0 turns it off). */
  fullTextWeight: number;
  /** Weight of the vector ranking in the fusion (default 1; 0 turns it off). */
  semanticWeight: number;
  /**
   * The vector ranking's weight for the embedding models listed, instead of
   * `semanticWeight` (default {@link DEFAULT_SEMANTIC_WEIGHTS}: 0 for the
   * offline embedders, whose rankings only displaced full text's hits).
   */
  semanticWeights?: Readonly<Record<string, number>>;
  /** The k of reciprocal rank fusion, score = weight / (k + rank) (default 60). */
  rrfK: number;
  /** The text search configuration messages are indexed and searched with (default "auto": each text's language, by its stop words). */
  textSearchConfig: string;
}

/**
 * The vector ranking's weight per embedding model where evidence says it
 * should differ. The offline embedders' vectors (`hashing-v1`, lexical;
 * `word-vectors-sif-v1`, word vectors with hashed features; and
 * `use-lite-hashing-v1`, a sentence encoder's with hashed features) found on
 * LoCoMo almost no evidence turn full text missed, and fused they reordered
 * its hits for the worse: recall uses full text alone with them
 * (docs/benchmarks.md#retrieval). Tool search still uses their vectors.
 */
const DEFAULT_SEMANTIC_WEIGHTS: Readonly<Record<string, number>> = Object.freeze({
  "hashing-v1": 0,
  "word-vectors-sif-v1": 0,
  "use-lite-hashing-v1": 0,
});

/** The vector ranking's weight for vectors of `model`. */
export function semanticWeightFor(
  options: Pick<MemoryOptions, "semanticWeight" | "semanticWeights">,
  model: string,
): number {
  const weights = options.semanticWeights ?? DEFAULT_SEMANTIC_WEIGHTS;
  return Object.hasOwn(weights, model) ? weights[model] : options.semanticWeight;
}

/** The defaults of {@link MemoryOptions}. */
export const DEFAULT_MEMORY_OPTIONS: Readonly<MemoryOptions> = Object.freeze({
  recentLimit: 10,
  matchCount: 5,
  matchThreshold: 0.3,
  scope: "session",
  fullTextWeight: 1,
  semanticWeight: 1,
  semanticWeights: DEFAULT_SEMANTIC_WEIGHTS,
  rrfK: 60,
  textSearchConfig: "auto",
});

/** A row of `load_chat_context`. */
export interface ContextRow {
  kind: "recent" | "match" | "memory";
  id: string;
  session_id: string;
  role: StoredMessage["role"];
  content: string;
  created_at: unknown;
  similarity: number | null;
  full_text_rank?: number | null;
  vector_rank?: number | null;
  score?: number | null;
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
    { caller, sessionId, text, embedding, embeddingModel }: LoadContextInput,
  ): Promise<ConversationContext> {
    const o = this.#options;
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query<ContextRow>(
        `select kind, id, session_id, role, content, created_at, similarity,
                full_text_rank, vector_rank, score
         from public.load_chat_context($1, $2, $3::vector, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          toSafeText(sessionId),
          caller.owner,
          toVectorLiteral(embedding),
          embeddingModel,
          o.recentLimit,
          o.matchCount,
          o.matchThreshold,
          o.scope,
          text === undefined ? null : toSafeText(text),
          o.fullTextWeight,
          semanticWeightFor(o, embeddingModel),
          o.rrfK,
          textSearchConfigFor(text ?? "", o.textSearchConfig),
        ],
      ));
    return contextFromRows(rows);
  }

  async saveTurn(
    { caller, sessionId, userMessage, assistantMessage, events, runId }: SaveTurnInput,
  ): Promise<void> {
    const claims = callerClaims(caller);
    await maskingErrors(this.#sql).query(saveTurnStatement({ asUser: claims !== undefined }), [
      ...auditParams(caller, { source: "loop", sessionId }, events.map(eventToJson)),
      toSafeText(userMessage.content),
      toVectorLiteral(userMessage.embedding),
      userMessage.embeddingModel,
      assistantMessage ? toSafeText(assistantMessage.content) : null,
      runId ?? null,
      textSearchConfigFor(userMessage.content, this.#options.textSearchConfig),
      ...(claims === undefined ? [] : [claims]),
    ]);
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

  async messagesByIds(caller: Caller, ids: readonly string[]): Promise<StoredMessage[]> {
    const wanted = uuidsIn(ids);
    if (wanted.length === 0) return [];
    const rows = await asCaller(
      this.#sql,
      caller,
      (db) =>
        db.query<Omit<ContextRow, "kind" | "similarity">>(
          "select id, session_id, role, content, created_at from public.get_chat_messages($1, $2::uuid[])",
          [caller.owner, `{${wanted.join(",")}}`],
        ),
    );
    return rows.map(toStoredMessage);
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
 * Splits the rows of `load_chat_context` into recent messages, matches and the
 * working memory, keeping the database's order (oldest first; best first):
 * timestamps in JavaScript lose the microseconds that order a turn's two messages.
 */
export function contextFromRows(rows: readonly ContextRow[]): ConversationContext {
  const recentMessages: StoredMessage[] = [];
  const semanticMatches: SemanticMatch[] = [];
  let workingMemory: Record<string, unknown> = {};
  for (const row of rows) {
    if (row.kind === "memory") {
      workingMemory = parseDocument(row.content);
      continue;
    }
    const message = toStoredMessage(row);
    if (row.kind === "recent") recentMessages.push(message);
    else semanticMatches.push(toMatch(message, row));
  }
  return { recentMessages, semanticMatches, workingMemory };
}

function toMatch(message: StoredMessage, row: ContextRow): SemanticMatch {
  const foundBy: SemanticMatch["foundBy"] = [];
  if (row.full_text_rank !== null && row.full_text_rank !== undefined) foundBy.push("full_text");
  if (row.vector_rank !== null && row.vector_rank !== undefined) foundBy.push("vector");
  return {
    ...message,
    ...(row.similarity === null ? {} : { similarity: Number(row.similarity) }),
    foundBy,
    score: Number(row.score ?? 0),
  };
}

/** A stored JSON document (text from `load_chat_context`, or jsonb already parsed). */
export function parseDocument(value: unknown): Record<string, unknown> {
  const parsed = typeof value === "string" ? JSON.parse(value) : value;
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? parsed as Record<string, unknown>
    : {};
}

/**
 * One turn in one statement, so in one implicit transaction: the messages through
 * `save_chat_turn` as the caller — a signed-in user's as `authenticated` with their
 * claims, set by the subquery that feeds the call, so row level security applies —
 * then, if the turn was stored (not already, not erased), its audit rows through
 * `write_mcp_events`, which runs as its owner. Parameters: $1–$5 as in
 * `auditParams` (user id, owner, source, session, rows), then the user's message,
 * its vector and model, the reply, the run, the text search configuration, and for
 * a user their claims ($12). The role and claims are transaction-local: they end
 * with the statement. The outer query must read `turn` whatever the parameters:
 * a filter the planner can fold to false (say, "no events") would skip the CTE,
 * and with it the turn.
 */
export function saveTurnStatement({ asUser }: { asUser: boolean }): string {
  const asCallerRole = asUser
    ? `from (select set_config('role', 'authenticated', true),
                    set_config('request.jwt.claims', $12, true) offset 0) as caller`
    : "";
  return `with turn as materialized (
      select public.save_chat_turn($4, $2, $6, $7::vector, $8, $9, $10::uuid, $11) as id
      ${asCallerRole}
    )
    select public.write_mcp_events($1::uuid, $2, $3, $4, $5::jsonb)
    from turn where turn.id is not null`;
}
