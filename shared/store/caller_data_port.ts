/**
 * The port for a caller's rights over their data: deleting a session,
 * deleting everything, and exporting everything — in pages, so an export of
 * any size is read and sent with bounded memory — each only for that caller.
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

/** Whether a deletion found nothing: a named session that was never there, or is gone already. */
export function deletedNothing(deleted: SessionDeletion): boolean {
  return Object.values(deleted).every((count) => count === 0);
}

/** What deleting everything of a caller removed. */
export interface CallerDeletion extends SessionDeletion {
  loops: number;
  /** 1 when there was a working memory. */
  memory: number;
}

/** Everything of a caller, as one JSON document (`GET /mcp-loop/data`'s `data`). */
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

/** The parts of an export that are lists, in the order the document holds them. */
export const EXPORT_SECTIONS = [
  "messages",
  "sessionSummaries",
  "loops",
  "runs",
  "toolCalls",
] as const;

/** A list of an export. */
export type ExportSection = typeof EXPORT_SECTIONS[number];

/** What an export starts with. */
export type ExportHead = Pick<CallerExport, "owner" | "exportedAt" | "workingMemory">;

/** Rows of a section in order, and where the next page starts (undefined: this was the last). */
export interface ExportPage {
  rows: Record<string, unknown>[];
  next?: string;
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
  /** The start of the caller's export: their owner key, the time, their working memory. */
  exportHead(caller: Caller): Promise<ExportHead>;
  /**
   * A page of `section` after `after` (a page's `next`; none: from the start): at most
   * `limit` rows and about `maxBytes` of JSON, at least one row while any is left.
   */
  exportPage(
    caller: Caller,
    section: ExportSection,
    page: { after?: string; limit: number; maxBytes: number },
  ): Promise<ExportPage>;
}
