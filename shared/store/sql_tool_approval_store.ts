/**
 * Approvals of MCP tool calls in Postgres (`mcp_tool_approvals`), scoped to
 * the caller's owner key and, for signed-in users, by row level security. An
 * answer is one conditional update: it wins only while the record is pending,
 * unexpired and names the same call.
 */
import type { Caller, Sql } from "../ports.ts";
import type {
  ApprovedCall,
  ToolApprovalAnswer,
  ToolApprovalStatus,
  ToolApprovalStore,
} from "../runs/tool_approval_store.ts";
import { asCaller } from "./as_caller.ts";
import { toIso } from "./sql_values.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** {@link ToolApprovalStore} over the `Sql` port. */
export class SqlToolApprovalStore implements ToolApprovalStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async create(caller: Caller, call: ApprovedCall & { expiresAt: Date }): Promise<string> {
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query<{ id: string }>(
        `insert into public.mcp_tool_approvals (owner, tool, args_digest, expires_at)
         values ($1, $2, $3, $4::timestamptz) returning id`,
        [caller.owner, call.tool, call.argsDigest, call.expiresAt.toISOString()],
      ));
    return rows[0].id;
  }

  async answer(
    caller: Caller,
    id: string,
    { tool, argsDigest, approved, now }: ApprovedCall & { approved: boolean; now: Date },
  ): Promise<ToolApprovalAnswer> {
    if (!UUID.test(id)) return { kind: "unknown" };
    const rows = await asCaller(
      this.#sql,
      caller,
      (db) =>
        db.query<
          { status: ToolApprovalStatus; expires_at: unknown; same_call: boolean; won: boolean }
        >(
          `with target as (
           select status, expires_at, tool, args_digest from public.mcp_tool_approvals
           where id = $1 and owner = $2
         ), changed as (
           update public.mcp_tool_approvals set status = $5, decided_at = $6::timestamptz
           where id = $1 and owner = $2 and status = 'pending' and tool = $3
             and args_digest = $4 and expires_at > $6::timestamptz
           returning id
         )
         select t.status, t.expires_at, (t.tool = $3 and t.args_digest = $4) as same_call,
                exists (select 1 from changed) as won
         from target t`,
          [
            id,
            caller.owner,
            tool,
            argsDigest,
            approved ? "approved" : "declined",
            now.toISOString(),
          ],
        ),
    );
    if (rows.length === 0 || !rows[0].same_call) return { kind: "unknown" };
    const [row] = rows;
    if (row.won) return { kind: "won" };
    if (row.status !== "pending") return { kind: "answered", status: row.status };
    const expiresAt = toIso(row.expires_at);
    if (Date.parse(expiresAt) <= now.getTime()) return { kind: "lapsed", expiresAt };
    // Pending in this statement's snapshot, yet not updated: another answer got there first.
    const [after] = await asCaller(
      this.#sql,
      caller,
      (db) =>
        db.query<{ status: ToolApprovalStatus }>(
          "select status from public.mcp_tool_approvals where id = $1 and owner = $2",
          [id, caller.owner],
        ),
    );
    return after && after.status !== "pending"
      ? { kind: "answered", status: after.status }
      : { kind: "unknown" };
  }
}
