/**
 * Which tool calls wait for a person's approval (`MCP_LOOP_APPROVAL`):
 * `none`; `destructive` (the default): tools that say so with `needsApproval`,
 * or that are annotated `destructiveHint: true`, remote ones included;
 * `writes`: those, and every tool not annotated `readOnlyHint: true`.
 * `finalize_summary` never does: it only writes the reply.
 */
import type { Caller } from "../ports.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import type { ToolDefinition } from "../tools/tool.ts";

/** The approval setting. */
export type ApprovalMode = "none" | "destructive" | "writes";

/** Which approval modes there are, for the setting's check. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ["none", "destructive", "writes"];

/** Decides, per call, whether a person must approve it first. */
export type ApprovalPolicy = (tool: ToolDefinition, args: unknown, caller: Caller) => boolean;

/** The policy of an approval mode. */
export function approvalPolicy(mode: ApprovalMode): ApprovalPolicy {
  return (tool, args, caller) => {
    if (mode === "none" || tool.name === FINALIZE_TOOL) return false;
    const asked = typeof tool.needsApproval === "function"
      ? tool.needsApproval(args, caller)
      : tool.needsApproval === true;
    if (asked || tool.annotations?.destructiveHint === true) return true;
    return mode === "writes" && tool.annotations?.readOnlyHint !== true;
  };
}

/** Nothing needs approval (a loop without a run store cannot pause). */
export const NO_APPROVALS: ApprovalPolicy = () => false;
