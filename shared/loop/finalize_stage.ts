/**
 * Stage 4 of the loop: take `summaryMessage` from `finalize_summary`, and store
 * the turn — the user's message with its embedding and the reply, in one
 * atomic call — within the request's deadline.
 */
import type { ActionResult, MCPRequest } from "../contracts.ts";
import type { AuditEvent } from "../ports.ts";
import { AppError, describeError, isAppError } from "../errors.ts";
import type { Caller, ConversationStore } from "../ports.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import { raceAbort, TimeoutReason } from "../abort.ts";

/** The output of the last successful `finalize_summary` step, if it is text. */
export function summaryOf(results: readonly ActionResult[]): string | undefined {
  const summary = results.findLast((r) => r.tool === FINALIZE_TOOL && r.success);
  return typeof summary?.output === "string" ? summary.output : undefined;
}

/** What one turn stores. */
export interface TurnToStore {
  store: ConversationStore;
  caller: Caller;
  request: MCPRequest;
  message: { content: string; embedding: number[]; embeddingModel: string };
  summaryMessage?: string;
  /** Audit rows stored with the turn (a loop without an audit log of its own). */
  events: readonly AuditEvent[];
  requestId?: string;
  /** The persisted run the turn belongs to (its turn is stored once, however often it is tried). */
  runId?: string;
}

/**
 * Stores the turn. A failure is DB_UNAVAILABLE (nothing was stored); a deadline
 * passing while the database has not answered is DEADLINE_EXCEEDED, and then
 * whether the statement committed is unknown.
 */
export async function storeTurn(turn: TurnToStore, signal: AbortSignal): Promise<void> {
  const { sessionId } = turn.request;
  try {
    await raceAbort(
      turn.store.saveTurn({
        caller: turn.caller,
        sessionId,
        userMessage: turn.message,
        assistantMessage: turn.summaryMessage === undefined
          ? undefined
          : { content: turn.summaryMessage },
        events: [...turn.events],
        ...(turn.runId ? { runId: turn.runId } : {}),
      }),
      signal,
    );
  } catch (error) {
    if (signal.aborted && signal.reason instanceof TimeoutReason) {
      throw new AppError(
        "DEADLINE_EXCEEDED",
        "The request deadline passed before the database confirmed storing the turn; it may or may not have been saved",
        { cause: error, details: { stored: "unknown" } },
      );
    }
    if (isAppError(error) && error.code !== "DB_UNAVAILABLE") throw error;
    throw new AppError(
      "DB_UNAVAILABLE",
      `Could not store the conversation turn: ${
        describeError(error)
      }; nothing was saved, try again`,
      { cause: error },
    );
  }
}
