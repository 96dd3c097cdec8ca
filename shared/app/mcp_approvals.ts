/**
 * What MCP approvals need, from the configuration: the approval policy, the
 * one-time records (SQL on the database) and the key their
 * request state is signed with. No MCP SDK is loaded here.
 */
import type { Config } from "../config/config.ts";
import type { McpApprovals } from "../mcp/mcp_approval.ts";
import { requestStateKey } from "../mcp/request_state_key.ts";
import type { Sql } from "../ports.ts";
import type { ApprovalPolicy } from "../runs/approval_policy.ts";
import { SqlToolApprovalStore } from "../store/sql_tool_approval_store.ts";

/** MCP approvals with the loop's approval `policy`, their records on `sql`. */
export function createMcpApprovals(
  config: Config,
  { policy, sql }: { policy: ApprovalPolicy; sql: Sql },
): McpApprovals {
  return {
    policy,
    mode: config.runs.approval,
    store: new SqlToolApprovalStore(sql),
    ttlMs: config.runs.approvalTtlMs,
    key: requestStateKey(config.mcp.requestStateKey),
  };
}
