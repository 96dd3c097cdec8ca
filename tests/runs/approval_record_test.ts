/**
 * One approval record for the loop and MCP: a tool that needs approval,
 * approved once through the loop's API and once over MCP, leaves one record
 * each — both written by the same store's `create`, the loop's naming its run
 * and step — and each call runs once.
 */
import assert from "node:assert/strict";
import type { Caller } from "../../shared/ports.ts";
import type { ApprovalRequest, ApprovalStore } from "../../shared/runs/approval_store.ts";
import { SqlApprovalStore } from "../../shared/store/sql_approval_store.ts";
import { MemoryAuditLog } from "../fakes/memory_audit_log.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { APPROVE, KEYS, modernClient, text } from "../support/mcp_approvals_fixture.ts";
import { mcpApp, serve } from "../support/mcp_fixture.ts";
import { sharedPglite } from "../support/pglite.ts";
import { countedTools } from "../support/runs_fixture.ts";

/** The SQL store, with every record it is asked to create noted down. */
function notingStore(store: ApprovalStore, created: ApprovalRequest[]): ApprovalStore {
  return {
    create: (caller, request) => {
      created.push(request);
      return store.create(caller, request);
    },
    answer: (caller, id, answer) => store.answer(caller, id, answer),
    answers: (caller, ids) => store.answers(caller, ids),
  };
}

Deno.test("a tool approved once through the loop and once over MCP leaves one record each, made by the same store", async () => {
  const sql = await sharedPglite();
  const calls: string[] = [];
  const created: ApprovalRequest[] = [];
  const app = await mcpApp({ MCP_LOOP_API_KEYS: `alice=${KEYS.alice}` }, {
    tools: countedTools(calls),
    audit: new MemoryAuditLog(),
    approvals: notingStore(new SqlApprovalStore(sql), created),
    planner: new ScriptedPlanner([{ tool: "delete_invoice", args: { id: "inv-loop" } }]),
  });
  const server = serve(app);
  const alice: Caller = { userId: null, owner: "key:alice" };
  try {
    const paused = await app.run(loopRequest("delete inv-loop"), { caller: alice });
    assert.equal(paused.data.stopReason, "approval_required");
    const [pending] = paused.data.pendingApprovals!;
    await app.runner.resume(paused.data.runId!, {
      caller: alice,
      approvals: [{ id: pending.id, approved: true }],
    });

    const client = await modernClient(server.url, KEYS.alice, { answer: APPROVE });
    const result = await client.callTool({ name: "delete_invoice", arguments: { id: "inv-mcp" } });
    await client.close();
    assert.match(text(result), /inv-mcp/);

    assert.deepEqual(calls, ["delete:inv-loop", "delete:inv-mcp"], "each call ran once");
    assert.deepEqual(
      created.map(({ tool, runId, step }) => [tool, runId ?? null, step ?? null]),
      [["delete_invoice", paused.data.runId, 0], ["delete_invoice", null, null]],
    );
    const rows = await sql.query<{ run_id: string | null; status: string }>(
      `select run_id::text, status from public.mcp_tool_approvals
       where owner = 'key:alice' and id = any($1::uuid[]) order by created_at`,
      [`{${pending.id},${(await idsOf(sql, created[1])).join(",")}}`],
    );
    assert.deepEqual(rows, [
      { run_id: paused.data.runId, status: "approved" },
      { run_id: null, status: "approved" },
    ]);
  } finally {
    await server.close();
    await app.close();
  }
});

/** The ids of records made for `request` (its tool and digest) in the owner's table. */
async function idsOf(
  sql: Awaited<ReturnType<typeof sharedPglite>>,
  request: ApprovalRequest,
): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `select id::text from public.mcp_tool_approvals
     where owner = 'key:alice' and args_digest = $1 and run_id is null`,
    [request.argsDigest],
  );
  return rows.map((row) => row.id);
}
