/**
 * What MCP approvals say: the question a person is asked, and the tool
 * results of calls that did not run (declined, lapsed, used, or a client
 * that cannot ask), each saying what to do next.
 */
import type { ApprovalMode } from "../tools/approval_rule.ts";
import type { ToolDefinition } from "../tools/tool.ts";

/** The longest argument preview a question shows. */
const MAX_PREVIEW_CHARS = 500;

/** Why a client cannot be asked. */
export type CannotAsk = "no-elicitation" | "stateless-legacy";

/** The question of the elicitation. */
export function approvalQuestion(tool: ToolDefinition, args: unknown): string {
  const preview = JSON.stringify(args ?? {});
  const shown = preview.length > MAX_PREVIEW_CHARS
    ? `${preview.slice(0, MAX_PREVIEW_CHARS)}… (${preview.length} characters)`
    : preview;
  const what = (tool.annotations?.title ?? tool.description).slice(0, 200);
  return `Allow the tool "${tool.name}" (${what}) to run once with ${shown}? ` +
    "It can change or delete data.";
}

/** The form of the elicitation: one boolean, `approve`. */
export function approvalForm(tool: ToolDefinition) {
  return {
    type: "object" as const,
    properties: {
      approve: {
        type: "boolean" as const,
        title: "Approve",
        description: `Run ${tool.name} once with these arguments`,
        default: false,
      },
    },
    required: ["approve"],
  };
}

/** A call that needs approval, from a client that cannot ask for it: how to get it run. */
export function cannotAskText(tool: string, mode: ApprovalMode, why: CannotAsk): string {
  const reason = why === "stateless-legacy"
    ? "This client speaks MCP 2025-11-25 over HTTP without a session (it sent no Mcp-Session-Id header), so the server cannot send it the approval request (elicitation)."
    : "This client did not declare the elicitation capability (form mode) when it connected, so it cannot show an approval prompt.";
  return `Tool "${tool}" needs a person's approval before it runs (MCP_LOOP_APPROVAL=${mode}); nothing ran. ${reason} ` +
    "To run it: call it from an MCP client that declares elicitation (form mode) when it connects; a 2025-11-25 client over HTTP then sends the Mcp-Session-Id header it gets back; " +
    "or ask for it through the loop (POST /mcp-loop), where the run waits and a person grants the call with POST /mcp-loop/runs/{runId}/approvals; " +
    "or have whoever runs this server change MCP_LOOP_APPROVAL.";
}

/** The person said no (declined, cancelled, or accepted without approving). */
export function declinedText(tool: string, action: "accept" | "decline" | "cancel"): string {
  const how = action === "cancel"
    ? "the approval prompt was cancelled"
    : action === "decline"
    ? "the person declined it"
    : "the person did not approve it";
  return `Tool "${tool}" did not run: ${how}. Do not call it again unless the person asks for it.`;
}

/** The approval lapsed before the answer came. */
export function lapsedText(tool: string, expiresAt: string, ttlMs: number): string {
  return `Tool "${tool}" did not run: its approval lapsed at ${expiresAt} (approvals wait ${
    formatDuration(ttlMs)
  }, option runs.approvalTtlMs). Call it again to ask for a new approval.`;
}

/**
 * Marks the answer a 2025-11-25 session's transport gives the server for a
 * question it withdrew unanswered (session_post_transport.ts): a `cancel`
 * whose `_meta` holds the wait, so the call is refused through the one way a
 * tool is called, and audited. Never sent to a client.
 */
export const UNANSWERED_META = "mcp-loop/unanswered";

/** Nobody answered the question of a 2025-11-25 session within the server's wait. */
export function unansweredText(tool: string, waitMs: number): string {
  const seconds = waitMs % 1000 === 0 ? String(waitMs / 1000) : (waitMs / 1000).toFixed(1);
  return `Tool "${tool}" did not run: nobody answered within ${seconds} s, the longest this server keeps a 2025-11-25 HTTP request open for an answer. Call the tool again to be asked again (or use a client on MCP 2026-07-28, which has no such limit).`;
}

/** The approval had been answered before: an approval is good for one call. */
export function answeredText(tool: string, status: "approved" | "declined"): string {
  return status === "approved"
    ? `Tool "${tool}" did not run again: this approval was already used, and an approval is good for one call. Call it again to ask for a new approval.`
    : `Tool "${tool}" did not run: this approval was already declined. Call it again to ask for a new approval.`;
}

/** The state names another call, or an approval that is not there. */
export function mismatchText(tool: string): string {
  return `Tool "${tool}" did not run: the approval in requestState was given for another call (another tool, other arguments or another caller). Call it again without requestState to ask for approval of this call.`;
}

function formatDuration(ms: number): string {
  for (const [unit, size] of [["d", 86_400_000], ["h", 3_600_000], ["m", 60_000]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}
