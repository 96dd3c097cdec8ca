/**
 * MCP approvals for the other ways in: a 2025-11-25 client over HTTP where the
 * endpoint offers no sessions (so the server cannot send it an elicitation) is
 * told how to get the call approved and never asked (with sessions it is
 * asked: mcp_approvals_sessions_test.ts); over stdio (`deno task mcp:stdio`,
 * one connection) a 2025-11-25 client is sent `elicitation/create` and a
 * 2026-07-28 client gets the `input_required` rounds, and the call runs once
 * it is approved.
 */
import assert from "node:assert/strict";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createJsonSchemaValidator } from "../../shared/mcp/json_schema_validator.ts";
import { approvalsSetup, isError, KEYS, text } from "../support/mcp_approvals_fixture.ts";
import { initializedDataDir } from "../support/process.ts";

const root = new URL("../../", import.meta.url).pathname;

/** A 2025-11-25 client that declares form elicitation and approves whatever it is asked. */
function approvingLegacyClient(asked: unknown[]): LegacyClient {
  const client = new LegacyClient({ name: "legacy-approver", version: "1" }, {
    capabilities: { elicitation: { form: {} } },
    jsonSchemaValidator: createJsonSchemaValidator(),
  });
  client.setRequestHandler(ElicitRequestSchema, (request: { params: unknown }) => {
    asked.push(request.params);
    return Promise.resolve({ action: "accept", content: { approve: true } });
  });
  return client;
}

Deno.test("MCP 2025-11-25 over HTTP without sessions: a call needing approval is refused with how to get it approved; the client is never asked", async () => {
  const t = await approvalsSetup();
  // An endpoint built without sessions (read when the first MCP request builds the handler).
  delete t.app.mcp.sessions;
  const asked: unknown[] = [];
  const client = approvingLegacyClient(asked);
  await client.connect(
    new LegacyTransport(t.url, {
      requestInit: { headers: { authorization: `Bearer ${KEYS.alice}` } },
    }),
  );
  try {
    const result = await client.callTool({ name: "delete_invoice", arguments: { id: "old" } });
    assert.equal(isError(result), true);
    assert.match(
      text(result),
      /MCP 2025-11-25 over HTTP without a session \(it sent no Mcp-Session-Id header\)/,
    );
    assert.match(
      text(result),
      /an MCP client that declares elicitation \(form mode\) when it connects/,
    );
    assert.match(text(result), /POST \/mcp-loop\/runs\/\{runId\}\/approvals/);
    assert.deepEqual(asked, []);
    assert.deepEqual(t.calls, []);
    assert.deepEqual(t.audit.rows.map((row) => [row.tool, row.success]), [[
      "delete_invoice",
      false,
    ]]);
    const read = await client.callTool({ name: "find_invoice", arguments: { number: "3" } });
    assert.equal(isError(read), false, "a call needing no approval is unchanged");
  } finally {
    await client.close();
    await t.close();
  }
});

/**
 * `deno task mcp:stdio` where starting a refinement loop (a write) needs approval, on a copy of a
 * migrated data folder (no initdb in the child).
 */
async function stdioServer() {
  return {
    command: Deno.execPath(),
    args: ["task", "--quiet", "--cwd", root, "mcp:stdio"],
    env: {
      ...Deno.env.toObject(),
      MCP_LOOP_DATA_DIR: await initializedDataDir(),
      MCP_LOOP_LOG_LEVEL: "warn",
      MCP_LOOP_APPROVAL: "writes",
    },
    stderr: "ignore" as const,
  };
}

Deno.test("MCP 2025-11-25 over stdio: the client is sent elicitation/create, and the approved call runs", async () => {
  const asked: unknown[] = [];
  const client = approvingLegacyClient(asked);
  await client.connect(new StdioClientTransport(await stdioServer()));
  try {
    const started = await client.callTool({
      name: "initialize_refinement_loop",
      arguments: { loop_type: "spec" },
    }) as { structuredContent?: { id: string } };
    assert.equal(isError(started), false, text(started));
    assert.match(started.structuredContent?.id ?? "", /^[0-9a-f]{8}$/);
    assert.equal(asked.length, 1);
    assert.match((asked[0] as { message: string }).message, /"initialize_refinement_loop"/);
    // A read needs no approval, even with MCP_LOOP_APPROVAL=writes.
    await client.callTool({ name: "list_active_loops", arguments: {} });
    assert.equal(asked.length, 1);
  } finally {
    await client.close();
  }
});

Deno.test("MCP 2026-07-28 over stdio: the input_required rounds ask, and the approved call runs", async () => {
  const asked: unknown[] = [];
  const client = new ModernClient({ name: "modern-stdio", version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    capabilities: { elicitation: { form: {} } },
    jsonSchemaValidator: createJsonSchemaValidator(),
  });
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.params);
    return Promise.resolve({ action: "accept", content: { approve: true } });
  });
  await client.connect(new ModernStdio(await stdioServer()));
  try {
    assert.equal(client.getProtocolEra(), "modern");
    const started = await client.callTool({
      name: "initialize_refinement_loop",
      arguments: { loop_type: "plan" },
    });
    assert.equal(isError(started), false, text(started));
    assert.equal(asked.length, 1);
  } finally {
    await client.close();
  }
});
