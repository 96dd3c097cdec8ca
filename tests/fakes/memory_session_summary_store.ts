/**
 * An in-memory `SessionSummaryStore` over a `MemoryConversationStore`'s rows,
 * with the SQL store's semantics (one caller's rows only, conditional saves);
 * it runs the shared suite too, so it cannot drift.
 */
import type { Caller } from "../../shared/ports.ts";
import type {
  HistoryMessage,
  SessionSummary,
  SessionSummaryStore,
  SummaryState,
  SummaryToSave,
} from "../../shared/store/session_summary_store.ts";
import type { MemoryConversationStore } from "./memory_conversation_store.ts";

type Stored = Omit<SessionSummary, "coveredRecentIds">;

/** The fake; `summaries` is public so tests can look. */
export class MemorySessionSummaryStore implements SessionSummaryStore {
  readonly summaries = new Map<string, Stored>();
  readonly #conversations: MemoryConversationStore;

  constructor(conversations: MemoryConversationStore) {
    this.#conversations = conversations;
  }

  load(
    caller: Caller,
    sessionId: string,
    recentLimit: number,
  ): Promise<SessionSummary | undefined> {
    const stored = this.summaries.get(key(caller, sessionId));
    if (!stored) return Promise.resolve(undefined);
    const recent = recentLimit > 0 ? this.#rows(caller, sessionId).slice(-recentLimit) : [];
    return Promise.resolve({
      ...stored,
      coveredRecentIds: recent.filter((row) => row.seq <= stored.coveredSeq).map((row) => row.id),
    });
  }

  async loadState(caller: Caller, sessionId: string, recentLimit: number): Promise<SummaryState> {
    const summary = await this.load(caller, sessionId, recentLimit);
    const rows = this.#rows(caller, sessionId);
    const older = rows.slice(0, Math.max(0, rows.length - Math.max(recentLimit, 0)))
      .filter((row) => row.seq > (summary?.coveredSeq ?? -1));
    const bytes = older.reduce((n, row) => n + new TextEncoder().encode(row.content).length, 0);
    return { summary, older: { messages: older.length, bytes } };
  }

  history(
    caller: Caller,
    sessionId: string,
    { afterSeq, limit }: { afterSeq: number; limit: number },
  ): Promise<HistoryMessage[]> {
    return Promise.resolve(
      this.#rows(caller, sessionId).filter((row) => row.seq > afterSeq).slice(0, limit)
        .map(({ id, seq, role, content }) => ({ id, seq, role, content })),
    );
  }

  save(caller: Caller, sessionId: string, summary: SummaryToSave): Promise<boolean> {
    const current = this.summaries.get(key(caller, sessionId));
    if ((current?.version ?? 0) !== summary.expectedVersion) return Promise.resolve(false);
    // As save_session_summary: a summary covers a message that is still there (erasure wins).
    const covered = this.#rows(caller, sessionId).some((row) => row.seq === summary.coveredSeq);
    if (!covered) return Promise.resolve(false);
    this.summaries.set(key(caller, sessionId), {
      summary: summary.summary,
      coveredSeq: summary.coveredSeq,
      coveredMessages: summary.coveredMessages,
      version: summary.expectedVersion + 1,
    });
    return Promise.resolve(true);
  }

  #rows(caller: Caller, sessionId: string) {
    return this.#conversations.rows
      .filter((row) => row.owner === caller.owner && row.sessionId === sessionId)
      .sort((a, b) => a.seq - b.seq);
  }
}

function key(caller: Caller, sessionId: string): string {
  return `${caller.owner}\u0000${sessionId}`;
}
