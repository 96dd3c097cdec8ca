/**
 * Where a session's summary is kept (compaction, see `loop/compaction.ts`):
 * the summary of a session's older messages, the messages it does not cover
 * yet, and a conditional save so two requests compacting at once cannot both win.
 */
import type { Caller, StoredMessage } from "../ports.ts";

/** A session's stored summary. */
export interface SessionSummary {
  summary: string;
  /** The summary covers the session's messages up to this position. */
  coveredSeq: number;
  /** How many messages it covers. */
  coveredMessages: number;
  version: number;
  /** Which of the session's latest messages (the recent window) it already covers. */
  coveredRecentIds: string[];
}

/** A session's summary and what it does not cover yet: compaction's first read. */
export interface SummaryState {
  summary?: SessionSummary;
  /** The messages older than the recent window and not summarised: how many, and their UTF-8 bytes. */
  older: { messages: number; bytes: number };
}

/** A message with its position in the session. */
export interface HistoryMessage extends Pick<StoredMessage, "id" | "role" | "content"> {
  seq: number;
}

/** What a save stores. */
export interface SummaryToSave {
  summary: string;
  coveredSeq: number;
  coveredMessages: number;
  /** The version read (0: there was none). */
  expectedVersion: number;
}

/** Reads and writes session summaries, each caller's own. */
export interface SessionSummaryStore {
  /** The session's summary, if it has one; `recentLimit` is the recent window's size. */
  load(caller: Caller, sessionId: string, recentLimit: number): Promise<SessionSummary | undefined>;
  /** The summary, and the size of what is older than the recent window and not summarised. */
  loadState(caller: Caller, sessionId: string, recentLimit: number): Promise<SummaryState>;
  /** The session's messages after `afterSeq`, oldest first, at most `limit`. */
  history(
    caller: Caller,
    sessionId: string,
    { afterSeq, limit }: { afterSeq: number; limit: number },
  ): Promise<HistoryMessage[]>;
  /** Stores the summary if it is still at `expectedVersion`; false when another save won. */
  save(caller: Caller, sessionId: string, summary: SummaryToSave): Promise<boolean>;
}
