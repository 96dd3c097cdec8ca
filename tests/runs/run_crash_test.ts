/**
 * A server killed (SIGKILL) while a run waits for approval: restarted on the
 * same data folder, it accepts the approval and finishes the run — the write
 * done exactly once, nothing half-stored.
 */
import assert from "node:assert/strict";
import {
  freePort,
  initializedDataDir,
  SERVE_ARGS,
  spawnProcess,
  START_TIMEOUT_MS,
  untilReady,
} from "../support/process.ts";

const KEY = "alice-key-0123456789";

/** The function as `deno task start` runs it, but as this process's own child, so SIGKILL reaches it. */
function server(port: number, dataDir: string) {
  return spawnProcess(
    [...SERVE_ARGS],
    {
      env: {
        PORT: String(port),
        MCP_LOOP_DATA_DIR: dataDir,
        MCP_LOOP_API_KEYS: `alice=${KEY}`,
        MCP_LOOP_APPROVAL: "writes",
        MCP_LOOP_LOG_LEVEL: "info",
      },
    },
  );
}

async function call(base: string, path: string, body: unknown): Promise<Response> {
  return await fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      // MCP requires both; the loop streams when asked for text/event-stream.
      accept: path === "/mcp" ? "application/json, text/event-stream" : "application/json",
      authorization: `Bearer ${KEY}`,
    },
    body: JSON.stringify(body),
  });
}

async function loops(base: string): Promise<number> {
  const res = await call(base, "/mcp", {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "list_active_loops", arguments: {} },
  });
  return (await res.json()).result.structuredContent.loops.length;
}

Deno.test("SIGKILL while a run waits for approval; after a restart the approval finishes it, the write done once", async () => {
  const dataDir = await initializedDataDir();
  const port = freePort();
  const base = `http://127.0.0.1:${port}/mcp-loop`;
  const first = server(port, dataDir);
  let runId: string;
  let approvalId: string;
  try {
    await untilReady(first);
    const res = await call(base, "", {
      mode: "general",
      sessionId: "crash-1",
      messages: [{ role: "user", content: "Start a spec refinement loop" }],
    });
    const { data } = await res.json();
    assert.equal(data.stopReason, "approval_required");
    runId = data.runId;
    approvalId = data.pendingApprovals[0].id;
    assert.equal(await loops(base), 0);
  } finally {
    await first.kill(); // SIGKILL: no shutdown, no flush
  }

  const second = server(port, dataDir);
  try {
    await untilReady(second);
    const { data: view } = await (await fetch(`${base}/runs/${runId}`, {
      headers: { authorization: `Bearer ${KEY}` },
    })).json();
    assert.equal(view.status, "waiting_approval");
    const res = await call(base, `/runs/${runId}/approvals`, {
      approvals: [{ id: approvalId, approved: true }],
    });
    assert.equal(res.status, 200);
    const { data } = await res.json();
    assert.equal(data.stopReason, "finalized");
    assert.deepEqual(data.intermediateResults.map((r: { success: boolean }) => r.success), [
      true,
      true,
    ]);
    assert.equal(await loops(base), 1, "the approved write ran exactly once");
    const again = await call(base, `/runs/${runId}/approvals`, {
      approvals: [{ id: approvalId, approved: true }],
    });
    assert.equal(again.status, 409);
    assert.equal(await loops(base), 1);
  } finally {
    second.child.kill("SIGTERM");
    await second.exited(START_TIMEOUT_MS);
    await second.kill();
  }
});
