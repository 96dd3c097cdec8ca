/**
 * An in-memory `ConversationStore` for unit tests, with the SQL store's
 * semantics: recent messages oldest first; matches from full text and vectors
 * fused by reciprocal rank (see hybrid_ranking.ts), the threshold on the
 * vectors only, same embedding model only, excluding the recent window; rows
 * of one caller only. It keeps working memory (versioned, like the SQL store)
 * and deletes and exports a caller's messages, memory and audit rows (loops
 * and runs live in their own fakes: it counts none). Runs the shared store
 * suite too, so it cannot drift.
 */
import type {
  AuditEvent,
  Caller,
  ConversationContext,
  ConversationStore,
  LoadContextInput,
  SaveTurnInput,
  StoredMessage,
} from "../../shared/ports.ts";
import type {
  CallerDataStore,
  CallerDeletion,
  ExportHead,
  ExportPage,
  ExportSection,
  SessionDeletion,
} from "../../shared/store/caller_data_port.ts";
import {
  DEFAULT_MEMORY_OPTIONS,
  type MemoryOptions,
} from "../../shared/store/sql_conversation_store.ts";
import type { StoredMemory, WorkingMemoryStore } from "../../shared/store/working_memory_port.ts";
import { hybridMatches, type RankedRow } from "./hybrid_ranking.ts";

interface Row extends RankedRow {
  owner: string;
  userId: string | null;
}

/** The fake store; `rows`, `events` and `memories` are public so tests can look. */
export class MemoryConversationStore
  implements ConversationStore, WorkingMemoryStore, CallerDataStore {
  rows: Row[] = [];
  readonly events: (AuditEvent & { caller: string })[] = [];
  readonly memories = new Map<string, StoredMemory>();
  /** When set, the next `saveTurn` throws it (and stores nothing). */
  failNextSave?: Error;
  readonly #options: MemoryOptions;
  readonly #runs = new Set<string>();
  #seq = 0;

  constructor(options: Partial<MemoryOptions> = {}) {
    this.#options = { ...DEFAULT_MEMORY_OPTIONS, ...options };
  }

  loadContext(
    { caller, sessionId, text, embedding, embeddingModel }: LoadContextInput,
  ): Promise<ConversationContext> {
    const { recentLimit, scope } = this.#options;
    const own = this.rows.filter((row) => row.owner === caller.owner);
    const session = own.filter((row) => row.sessionId === sessionId);
    const recent = recentLimit > 0 ? session.slice(-recentLimit) : [];
    const recentIds = new Set(recent.map((row) => row.id));
    const searched = scope === "user" && caller.userId ? own : session;
    const semanticMatches = hybridMatches(searched, {
      ...this.#options,
      text,
      embedding,
      embeddingModel,
      exclude: recentIds,
    });
    return Promise.resolve({
      recentMessages: recent.map(strip),
      semanticMatches,
      workingMemory: structuredClone(this.memories.get(caller.owner)?.document ?? {}),
    });
  }

  saveTurn(
    { caller, sessionId, userMessage, assistantMessage, events, runId }: SaveTurnInput,
  ): Promise<void> {
    if (this.failNextSave) {
      const error = this.failNextSave;
      this.failNextSave = undefined;
      return Promise.reject(error);
    }
    // A run's turn is stored once per owner, as save_chat_turn does ((owner, run_id, role) is unique).
    const run = runId === undefined ? undefined : `${caller.owner}\u0000${runId}`;
    if (run !== undefined && this.#runs.has(run)) return Promise.resolve();
    if (run !== undefined) this.#runs.add(run);
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

  /** As `get_chat_messages`: the caller's own, oldest first, at most 1,000. */
  messagesByIds(caller: Caller, ids: readonly string[]): Promise<StoredMessage[]> {
    const wanted = new Set(ids);
    const found = this.rows.filter((row) => row.owner === caller.owner && wanted.has(row.id));
    return Promise.resolve(found.slice(0, 1_000).map(strip));
  }

  getMemory(caller: Caller): Promise<StoredMemory> {
    const stored = this.memories.get(caller.owner);
    return Promise.resolve(
      stored ? structuredClone(stored) : { document: {}, version: 0 },
    );
  }

  putMemory(
    caller: Caller,
    document: Record<string, unknown>,
    expectedVersion: number,
  ): Promise<boolean> {
    const version = this.memories.get(caller.owner)?.version ?? 0;
    if (version !== expectedVersion) return Promise.resolve(false);
    // What the table's check refuses: a document that is not an object, or one too large.
    if (typeof document !== "object" || Array.isArray(document)) {
      return Promise.reject(new Error("working_memory_document_check"));
    }
    if (new TextEncoder().encode(JSON.stringify(document)).length > 32_000) {
      return Promise.reject(new Error("working_memory_document_check"));
    }
    this.memories.set(caller.owner, { document: structuredClone(document), version: version + 1 });
    return Promise.resolve(true);
  }

  deleteSession(caller: Caller, sessionId: string): Promise<SessionDeletion> {
    const gone = (row: Row) => row.owner === caller.owner && row.sessionId === sessionId;
    const messages = this.rows.filter(gone).length;
    this.rows = this.rows.filter((row) => !gone(row));
    const auditRows = this.#scrub(caller, sessionId);
    return Promise.resolve({ messages, runs: 0, summaries: 0, auditRows });
  }

  deleteEverything(caller: Caller): Promise<CallerDeletion> {
    const messages = this.rows.filter((row) => row.owner === caller.owner).length;
    this.rows = this.rows.filter((row) => row.owner !== caller.owner);
    const memory = this.memories.delete(caller.owner) ? 1 : 0;
    const auditRows = this.#scrub(caller);
    return Promise.resolve({ messages, runs: 0, summaries: 0, auditRows, loops: 0, memory });
  }

  exportHead(caller: Caller): Promise<ExportHead> {
    return Promise.resolve({
      owner: caller.owner,
      exportedAt: new Date().toISOString(),
      workingMemory: structuredClone(this.memories.get(caller.owner)?.document ?? null),
    });
  }

  /** Pages as `export_chat_page` makes them: `limit` rows, about `maxBytes`, at least one row. */
  exportPage(
    caller: Caller,
    section: ExportSection,
    { after, limit, maxBytes }: { after?: string; limit: number; maxBytes: number },
  ): Promise<ExportPage> {
    const all = this.#section(caller, section);
    const start = after === undefined ? 0 : Number(after) + 1;
    const rows: Record<string, unknown>[] = [];
    let bytes = 0;
    for (let i = start; i < all.length && rows.length < limit && bytes < maxBytes; i++) {
      rows.push(all[i]);
      bytes += JSON.stringify(all[i]).length;
    }
    return Promise.resolve({
      rows: structuredClone(rows),
      ...(rows.length > 0 ? { next: String(start + rows.length - 1) } : {}),
    });
  }

  /** A section of the caller's export in the SQL store's order (messages by session, then time). */
  #section(caller: Caller, section: ExportSection): Record<string, unknown>[] {
    if (section === "messages") {
      return this.rows.filter((row) => row.owner === caller.owner)
        .sort((a, b) =>
          a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : a.seq - b.seq
        )
        .map((row) => ({ ...strip(row), embeddingModel: row.embeddingModel ?? null }));
    }
    if (section !== "toolCalls") return []; // Summaries, loops and runs live in their own fakes.
    return this.events.filter((event) => event.caller === caller.owner).map((event) => ({
      source: event.source,
      sessionId: event.sessionId ?? null,
      tool: event.tool,
      input: event.input ?? null,
      output: event.output ?? null,
      success: event.success,
      error: event.error ?? null,
    }));
  }

  /** Clears the content of the caller's audit rows (of one session); counts those it changed. */
  #scrub(caller: Caller, sessionId?: string): number {
    let scrubbed = 0;
    for (const event of this.events) {
      if (event.caller !== caller.owner) continue;
      if (sessionId !== undefined && event.sessionId !== sessionId) continue;
      if (event.input == null && event.output == null && event.error == null) continue;
      event.input = null;
      event.output = undefined;
      event.error = undefined;
      scrubbed++;
    }
    return scrubbed;
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
