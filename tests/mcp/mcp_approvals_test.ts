/**
 * A person's approval of MCP tool calls, through the SDK's own 2026-07-28
 * client over loopback HTTP: a call the approval policy names is asked about
 * (an elicitation inside an `input_required` result); accepted it runs once,
 * declined or cancelled it does not run; a client that cannot ask is told how
 * the call can be approved; a tool that needs no approval is unchanged; every
 * call that ran or was refused is audited.
 */
import assert from "node:assert/strict";
import {
  approvalsSetup,
  APPROVE,
  isError,
  KEYS,
  modernClient,
  text,
} from "../support/mcp_approvals_fixture.ts";

Deno.test("MCP 2026-07-28: a call needing approval asks the person; accepted, it runs once", async () => {
  const t = await approvalsSetup();
  const asked: unknown[] = [];
  const client = await modernClient(t.url, KEYS.alice, { answer: APPROVE, asked });
  try {
    const result = await client.callTool({ name: "delete_invoice", arguments: { id: "inv-7" } });
    assert.equal(isError(result), false, text(result));
    assert.deepEqual(JSON.parse(text(result)), { deleted: "inv-7" });
    assert.deepEqual(t.calls, ["delete:inv-7"]);
    assert.equal(asked.length, 1);
    const question = asked[0] as {
      message: string;
      requestedSchema: { properties: Record<string, { type: string }> };
    };
    assert.match(question.message, /"delete_invoice" \(Delete an invoice\).*\{"id":"inv-7"\}/);
    assert.deepEqual(question.requestedSchema.properties.approve.type, "boolean");
    // Below its threshold `pay` needs no approval, and a read never does: neither asks.
    await client.callTool({ name: "pay", arguments: { amount: 20 } });
    await client.callTool({ name: "find_invoice", arguments: { number: "1" } });
    assert.equal(asked.length, 1);
    // Above it, `pay` asks (needsApproval as a function of the args).
    await client.callTool({ name: "pay", arguments: { amount: 500 } });
    assert.equal(asked.length, 2);
    assert.deepEqual(t.calls, ["delete:inv-7", "pay:20", "find:1", "pay:500"]);
    assert.deepEqual(
      t.audit.rows.map((row) => [row.tool, row.success, row.caller]),
      [
        ["delete_invoice", true, "key:alice"],
        ["pay", true, "key:alice"],
        ["find_invoice", true, "key:alice"],
        ["pay", true, "key:alice"],
      ],
      "one audit row per call that ran; none for the questions",
    );
  } finally {
    await client.close();
    await t.close();
  }
});

Deno.test("MCP 2026-07-28: declined, cancelled or not approved, the call does not run and says so", async () => {
  const t = await approvalsSetup();
  try {
    const answers = [
      [{ action: "decline" }, /did not run: the person declined it/],
      [{ action: "cancel" }, /did not run: the approval prompt was cancelled/],
      [
        { action: "accept", content: { approve: false } },
        /did not run: the person did not approve/,
      ],
    ] as const;
    for (const [answer, expected] of answers) {
      const client = await modernClient(t.url, KEYS.alice, { answer });
      const result = await client.callTool({ name: "delete_invoice", arguments: { id: "x" } });
      await client.close();
      assert.equal(isError(result), true);
      assert.match(text(result), expected);
    }
    assert.deepEqual(t.calls, [], "nothing ran");
    assert.deepEqual(
      t.audit.rows.map((row) => [row.tool, row.success, row.input]),
      answers.map(() => ["delete_invoice", false, { id: "x" }]),
    );
    assert.ok(t.audit.rows.every((row) => /did not run/.test(row.error ?? "")));
  } finally {
    await t.close();
  }
});

Deno.test("MCP 2026-07-28: a client without elicitation is told how to get the call approved, not a protocol error", async () => {
  const t = await approvalsSetup();
  const client = await modernClient(t.url, KEYS.alice);
  try {
    const result = await client.callTool({ name: "delete_invoice", arguments: { id: "y" } });
    assert.equal(isError(result), true);
    assert.match(text(result), /needs a person's approval before it runs/);
    assert.match(text(result), /did not declare the elicitation capability/);
    assert.match(text(result), /POST \/mcp-loop\/runs\/\{runId\}\/approvals/);
    assert.match(text(result), /MCP_LOOP_APPROVAL/);
    assert.deepEqual(t.calls, []);
    assert.equal(t.audit.rows[0].success, false);
    // What needs no approval still runs for it.
    const read = await client.callTool({ name: "find_invoice", arguments: { number: "2" } });
    assert.equal(isError(read), false);
  } finally {
    await client.close();
    await t.close();
  }
});

Deno.test("MCP_LOOP_APPROVAL=none: nothing is asked, the call runs", async () => {
  const t = await approvalsSetup({ MCP_LOOP_APPROVAL: "none" });
  const client = await modernClient(t.url, KEYS.alice);
  try {
    const result = await client.callTool({ name: "delete_invoice", arguments: { id: "z" } });
    assert.equal(isError(result), false, text(result));
    assert.deepEqual(t.calls, ["delete:z"]);
  } finally {
    await client.close();
    await t.close();
  }
});
