/** Turns a trace entry into an audit row. */
import type { ActionResult } from "../contracts.ts";
import type { AuditEvent } from "../ports.ts";

/** The audit row of one loop step. */
export function toAuditEvent(
  result: ActionResult,
  { sessionId, requestId }: { sessionId?: string; requestId?: string },
): AuditEvent {
  return {
    source: "loop",
    tool: result.tool,
    input: result.input,
    output: result.output,
    success: result.success,
    error: result.error,
    durationMs: result.durationMs,
    sessionId,
    requestId,
  };
}
