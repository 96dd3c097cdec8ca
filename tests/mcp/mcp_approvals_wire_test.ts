/**
 * MCP approvals on the wire (a 2026-07-28 client in manual mode, each round
 * sent by the test): an approval runs one call once — a replayed retry, a
 * state sent by another caller, a state used for other arguments, an answer
 * without a state, or an answer after the approval lapsed run nothing.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { APPROVAL_INPUT } from "../../shared/mcp/mcp_approval.ts";
import {
  approvalsSetup,
  APPROVE,
  isError,
  KEYS,
  modernClient,
  text,
} from "../support/mcp_approvals_fixture.ts";

interface Round {
  resultType?: string;
  requestState?: string;
  inputRequests?: Record<string, { method: string }>;
  isError?: boolean;
  content?: { text: string }[];
}

/** One `tools/call` round as the test sends it. */
function round(
  client: Client,
  args: Record<string, unknown>,
  retry: { requestState?: string; inputResponses?: Record<string, unknown> } = {},
): Promise<Round> {
  return client.request(
    { method: "tools/call", params: { name: "delete_invoice", arguments: args, ...retry } },
    { allowInputRequired: true },
  ) as Promise<Round>;
}

const accept = (requestState?: string) => ({
  requestState,
  inputResponses: { [APPROVAL_INPUT]: APPROVE },
});

Deno.test("MCP approvals: a replayed retry (the same state and yes) does not run the call again", async () => {
  const t = await approvalsSetup();
  const client = await modernClient(t.url, KEYS.alice, { autoFulfill: false });
  try {
    const asked = await round(client, { id: "inv-1" });
    assert.equal(asked.resultType, "input_required");
    assert.equal(asked.inputRequests?.[APPROVAL_INPUT].method, "elicitation/create");
    assert.ok(asked.requestState);
    const ran = await round(client, { id: "inv-1" }, accept(asked.requestState));
    assert.equal(isError(ran), false, text(ran));
    const again = await round(client, { id: "inv-1" }, accept(asked.requestState));
    assert.equal(isError(again), true);
    assert.match(text(again), /already used, and an approval is good for one call/);
    const racing = await Promise.all(
      [1, 2].map(() => round(client, { id: "inv-1" }, accept(asked.requestState))),
    );
    assert.ok(racing.every(isError));
    assert.deepEqual(t.calls, ["delete:inv-1"], "ran once");
    assert.deepEqual(t.audit.rows.map((row) => row.success), [true, false, false, false]);
  } finally {
    await client.close();
    await t.close();
  }
});

Deno.test("MCP approvals: another caller cannot use someone's state; the owner still can", async () => {
  const t = await approvalsSetup();
  const alice = await modernClient(t.url, KEYS.alice, { autoFulfill: false });
  const bob = await modernClient(t.url, KEYS.bob, { autoFulfill: false });
  try {
    const asked = await round(alice, { id: "inv-2" });
    await assert.rejects(
      round(bob, { id: "inv-2" }, accept(asked.requestState)),
      (error: { code?: number; message?: string }) => {
        assert.equal(error.code, -32602);
        assert.match(error.message ?? "", /Invalid or expired requestState/);
        return true;
      },
    );
    assert.deepEqual(t.calls, []);
    const ran = await round(alice, { id: "inv-2" }, accept(asked.requestState));
    assert.equal(isError(ran), false, text(ran));
    assert.deepEqual(t.calls, ["delete:inv-2"]);
  } finally {
    await alice.close();
    await bob.close();
    await t.close();
  }
});

Deno.test("MCP approvals: a state approves only its own call; a yes without a state is asked again", async () => {
  const t = await approvalsSetup();
  const client = await modernClient(t.url, KEYS.alice, { autoFulfill: false });
  try {
    const asked = await round(client, { id: "inv-3" });
    const other = await round(client, { id: "inv-4" }, accept(asked.requestState));
    assert.equal(isError(other), true);
    assert.match(text(other), /was given for another call/);
    const tampered = `${asked.requestState!.slice(0, -2)}AA`;
    await assert.rejects(round(client, { id: "inv-3" }, accept(tampered)), /requestState/);
    // A "yes" with no state approves nothing: the client is asked.
    const bare = await round(client, { id: "inv-3" }, accept());
    assert.equal(bare.resultType, "input_required");
    // A state with no answer (or not an elicitation's) is asked about again, same approval.
    const unanswered = await round(client, { id: "inv-3" }, {
      requestState: asked.requestState,
      inputResponses: { [APPROVAL_INPUT]: 12345 },
    });
    assert.equal(unanswered.resultType, "input_required");
    assert.deepEqual(t.calls, []);
    const ran = await round(client, { id: "inv-3" }, accept(unanswered.requestState));
    assert.equal(isError(ran), false, text(ran));
    assert.deepEqual(t.calls, ["delete:inv-3"]);
  } finally {
    await client.close();
    await t.close();
  }
});

Deno.test("MCP approvals: an answer after the approval lapsed is refused readably", async () => {
  const t = await approvalsSetup({}, { runs: { approvalTtlMs: 30 * 60_000 } });
  const client = await modernClient(t.url, KEYS.alice, { autoFulfill: false });
  const approvals = t.app.mcp.approvals!;
  try {
    const asked = await round(client, { id: "inv-5" });
    approvals.now = () => Date.now() + 31 * 60_000;
    const late = await round(client, { id: "inv-5" }, accept(asked.requestState));
    assert.equal(isError(late), true);
    assert.match(
      text(late),
      /approval lapsed at .* \(approvals wait 30m, option runs.approvalTtlMs\)/,
    );
    assert.deepEqual(t.calls, []);
    assert.match(t.audit.rows[0].error ?? "", /lapsed/);
  } finally {
    await client.close();
    await t.close();
  }
});

Deno.test("MCP approvals across instances: the answer may reach another instance with the same key, not one with its own", async () => {
  const key = { MCP_LOOP_REQUEST_STATE_KEY: "shared-key-".repeat(4) };
  const [a, b, lone] = await Promise.all([
    approvalsSetup(key),
    approvalsSetup(key),
    approvalsSetup(),
  ]);
  const clients = await Promise.all(
    [a, b, lone].map((t) => modernClient(t.url, KEYS.alice, { autoFulfill: false })),
  );
  try {
    const asked = await round(clients[0], { id: "inv-6" });
    await assert.rejects(
      round(clients[2], { id: "inv-6" }, accept(asked.requestState)),
      /requestState/,
    );
    const ran = await round(clients[1], { id: "inv-6" }, accept(asked.requestState));
    assert.equal(isError(ran), false, text(ran));
    assert.deepEqual([a.calls, b.calls, lone.calls], [[], ["delete:inv-6"], []]);
    // The one-time record is in the shared database: instance A will not run it again.
    const replay = await round(clients[0], { id: "inv-6" }, accept(asked.requestState));
    assert.match(text(replay), /already used/);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all([a, b, lone].map((t) => t.close()));
  }
});
