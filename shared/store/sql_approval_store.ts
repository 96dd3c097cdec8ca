/**
 * Approval records in Postgres (`mcp_tool_approvals`), scoped to the caller's
 * owner key and, for signed-in users, by row level security. An answer is one
 * conditional update: it wins only while the record is pending, unexpired and
 * names the same call.
 */
import { AppError } from "../errors.ts";
import type { Caller, Sql } from "../ports.ts";
import type {
  Answer,
  ApprovalAnswer,
  ApprovalRequest,
  ApprovalStatus,
  ApprovalStore,
  ApprovedCall,
} from "../runs/approval_store.ts";
import { asCaller } from "./as_caller.ts";
import { toIso } from "./sql_values.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** {@link ApprovalStore} over the `Sql` port. */
export class SqlApprovalStore implements ApprovalStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async create(caller: Caller, request: ApprovalRequest): Promise<string> {
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query<{ id: string }>(
        `insert into public.mcp_tool_approvals
           (id, owner, tool, args_digest, expires_at, run_id, step)
         values (coalesce($7::uuid, gen_random_uuid()), $1, $2, $3, $4::timestamptz, $5::uuid, $6)
         returning id`,
        [
          caller.owner,
          request.tool,
          request.argsDigest,
          request.expiresAt.toISOString(),
          request.runId ?? null,
          request.step ?? null,
          request.id ?? null,
        ],
      ));
    if (!rows[0]?.id) {
      throw new AppError("DB_UNAVAILABLE", "the database did not return the approval's id");
    }
    return rows[0].id;
  }

  async answer(
    caller: Caller,
    id: string,
    { tool, argsDigest, approved, reason, now }: ApprovedCall & Answer & { now: Date },
  ): Promise<ApprovalAnswer> {
    if (!UUID.test(id)) return { kind: "unknown" };
    const rows = await asCaller(
      this.#sql,
      caller,
      (db) =>
        db.query<
          { status: ApprovalStatus; expires_at: unknown; same_call: boolean; won: boolean }
        >(
          `with target as (
           select status, expires_at, tool, args_digest from public.mcp_tool_approvals
           where id = $1 and owner = $2
         ), changed as (
           update public.mcp_tool_approvals
           set status = $5, decided_at = $6::timestamptz, reason = $7
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
            reason ?? null,
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
    const [after] = await this.#statuses(caller, [id]);
    return after && after.status !== "pending"
      ? { kind: "answered", status: after.status }
      : { kind: "unknown" };
  }

  async answers(caller: Caller, ids: readonly string[]): Promise<Map<string, Answer>> {
    const wanted = ids.filter((id) => UUID.test(id));
    const answers = new Map<string, Answer>();
    if (wanted.length === 0) return answers;
    for (const row of await this.#statuses(caller, wanted)) {
      if (row.status === "pending") continue;
      answers.set(row.id, {
        approved: row.status === "approved",
        ...(row.reason ? { reason: row.reason } : {}),
      });
    }
    return answers;
  }

  #statuses(caller: Caller, ids: readonly string[]) {
    return asCaller(
      this.#sql,
      caller,
      (db) =>
        db.query<{ id: string; status: ApprovalStatus; reason: string | null }>(
          `select id, status, reason from public.mcp_tool_approvals
         where id = any ($1::uuid[]) and owner = $2`,
          [`{${ids.join(",")}}`, caller.owner],
        ),
    );
  }
}
