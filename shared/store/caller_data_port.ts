/**
 * The port for a caller's rights over their data: deleting a session,
 * deleting everything, and exporting everything, each only for that caller.
 */
import type { Caller } from "../ports.ts";

/** What deleting a session removed. */
export interface SessionDeletion {
  messages: number;
  runs: number;
  summaries: number;
  /** Audit rows of the session whose input, output and error were cleared (the rows stay). */
  auditRows: number;
}

/** What deleting everything of a caller removed. */
export interface CallerDeletion extends SessionDeletion {
  loops: number;
  /** 1 when there was a working memory. */
  memory: number;
}

/** Everything of a caller, as JSON (`export_chat_caller`'s document). */
export interface CallerExport {
  owner: string;
  exportedAt: string;
  messages: Record<string, unknown>[];
  /** The sessions' summaries of their older messages (compaction). */
  sessionSummaries: Record<string, unknown>[];
  workingMemory: Record<string, unknown> | null;
  loops: Record<string, unknown>[];
  runs: Record<string, unknown>[];
  toolCalls: Record<string, unknown>[];
}

/** Forgetting and export. */
export interface CallerDataStore {
  /** Deletes one session; `keepRunning` spares runs still running (the asking run's own). */
  deleteSession(
    caller: Caller,
    sessionId: string,
    options?: { keepRunning?: boolean },
  ): Promise<SessionDeletion>;
  /** Deletes everything of the caller. */
  deleteEverything(caller: Caller): Promise<CallerDeletion>;
  /** Everything of the caller. */
  exportEverything(caller: Caller): Promise<CallerExport>;
}
