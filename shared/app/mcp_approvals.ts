/**
 * What MCP approvals need, from the configuration: the approval rule, the
 * approval records (the run engine's store: one for the loop and MCP) and the
 * key their request state is signed with. No MCP SDK is loaded here.
 */
import type { Config } from "../config/config.ts";
import type { McpApprovals } from "../mcp/mcp_approval.ts";
import { requestStateKey } from "../mcp/request_state_key.ts";
import type { ApprovalStore } from "../runs/approval_store.ts";
import type { ApprovalRule } from "../tools/approval_rule.ts";

/** MCP approvals with the loop's approval `rule`, their records in `store`. */
export function createMcpApprovals(
  config: Config,
  { rule, store }: { rule: ApprovalRule; store: ApprovalStore },
): McpApprovals {
  return {
    rule,
    mode: config.runs.approval,
    store,
    ttlMs: config.runs.approvalTtlMs,
    key: requestStateKey(config.mcp.requestStateKey),
  };
}
