/**
 * An in-memory `ConversationStore` for unit tests, with the SQL store's
 * semantics: recent messages oldest first, matches by cosine similarity above a
 * threshold, same embedding model only, excluding the recent window; rows of one
 * caller only. Runs the shared store suite too, so it cannot drift.
 */
import { cosine } from "../../shared/adapters/hashing/hashing_embedder.ts";
import type {
  AuditEvent,
  Caller,
  ConversationContext,
  ConversationStore,
  LoadContextInput,
  SaveTurnInput,
  StoredMessage,
} from "../../shared/ports.ts";
import {
  DEFAULT_MEMORY_OPTIONS,
  type MemoryOptions,
} from "../../shared/store/sql_conversation_store.ts";

interface Row extends StoredMessage {
  owner: string;
  userId: string | null;
  embedding?: number[];
  embeddingModel?: string;
  seq: number;
}

/** The fake store; `rows` and `events` are public so tests can look. */
export class MemoryConversationStore implements ConversationStore {
  readonly rows: Row[] = [];
  readonly events: (AuditEvent & { caller: string })[] = [];
  /** When set, the next `saveTurn` throws it (and stores nothing). */
  failNextSave?: Error;
  readonly #options: MemoryOptions;
  readonly #runs = new Set<string>();
  #seq = 0;

  constructor(options: Partial<MemoryOptions> = {}) {
    this.#options = { ...DEFAULT_MEMORY_OPTIONS, ...options };
  }

  loadContext(
    { caller, sessionId, embedding, embeddingModel }: LoadContextInput,
  ): Promise<ConversationContext> {
    const { recentLimit, matchCount, matchThreshold, scope } = this.#options;
    const own = this.rows.filter((row) => row.owner === caller.owner);
    const session = own.filter((row) => row.sessionId === sessionId);
    const recent = recentLimit > 0 ? session.slice(-recentLimit) : [];
    const recentIds = new Set(recent.map((row) => row.id));
    const searched = scope === "user" && caller.userId ? own : session;
    const semanticMatches = searched
      .filter((row) =>
        row.embedding && row.embeddingModel === embeddingModel && !recentIds.has(row.id)
      )
      .map((row) => ({ ...strip(row), similarity: cosine(row.embedding!, embedding) }))
      .filter((row) => row.similarity >= matchThreshold)
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, matchCount);
    return Promise.resolve({ recentMessages: recent.map(strip), semanticMatches });
  }

  saveTurn(
    { caller, sessionId, userMessage, assistantMessage, events, runId }: SaveTurnInput,
  ): Promise<void> {
    if (this.failNextSave) {
      const error = this.failNextSave;
      this.failNextSave = undefined;
      return Promise.reject(error);
    }
    // A run's turn is stored once, as save_chat_turn does.
    if (runId !== undefined && this.#runs.has(runId)) return Promise.resolve();
    if (runId !== undefined) this.#runs.add(runId);
    this.#add(caller, sessionId, "user", userMessage.content, userMessage);
    if (assistantMessage) this.#add(caller, sessionId, "assistant", assistantMessage.content);
    for (const event of events) this.events.push({ ...event, caller: caller.owner });
    return Promise.resolve();
  }

  listMessages(caller: Caller, sessionId: string, limit: number): Promise<StoredMessage[]> {
    const session = this.rows.filter((row) =>
      row.owner === caller.owner && row.sessionId === sessionId
    );
    return Promise.resolve(limit > 0 ? session.slice(-limit).map(strip) : []);
  }

  listSessions(caller: Caller, prefix: string, limit: number): Promise<string[]> {
    const latest = new Map<string, number>();
    for (const row of this.rows) {
      if (row.owner === caller.owner && row.sessionId.startsWith(prefix)) {
        latest.set(row.sessionId, row.seq);
      }
    }
    return Promise.resolve(
      [...latest].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([id]) => id),
    );
  }

  #add(
    caller: Caller,
    sessionId: string,
    role: StoredMessage["role"],
    content: string,
    vector?: { embedding: number[]; embeddingModel: string },
  ): void {
    this.rows.push({
      id: crypto.randomUUID(),
      sessionId,
      role,
      content,
      createdAt: new Date().toISOString(),
      owner: caller.owner,
      userId: caller.userId,
      embedding: vector?.embedding,
      embeddingModel: vector?.embeddingModel,
      seq: this.#seq++,
    });
  }
}

function strip({ id, sessionId, role, content, createdAt }: Row): StoredMessage {
  return { id, sessionId, role, content, createdAt };
}
