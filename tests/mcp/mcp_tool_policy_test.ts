import assert from "node:assert/strict";
import type { Caller } from "../../shared/ports.ts";
import { sharedPglite } from "../support/pglite.ts";
import { httpClient, inMemoryClient, mcpApp, serve } from "../support/mcp_fixture.ts";

const POLICY = JSON.stringify({
  callers: {
    "key:reporter": ["get_loop_status", "list_active_loops"],
    anonymous: ["finalize_summary"],
  },
});
const REPORTER_KEY = "reporter-key-0123456789";

type RpcError = { code: number; message: string; data?: { code?: string; tool?: string } };

Deno.test("MCP tools/list shows a caller only the tools its policy permits", async () => {
  const app = await mcpApp({ MCP_LOOP_TOOL_POLICY: POLICY });
  const reporter = await inMemoryClient(app, { userId: null, owner: "key:reporter" });
  const anonymous = await inMemoryClient(app);
  const names = async (client: typeof reporter) =>
    ((await client.listTools()) as { tools: { name: string }[] }).tools.map((t) => t.name);
  assert.deepEqual(await names(reporter), ["get_loop_status", "list_active_loops"]);
  assert.deepEqual(await names(anonymous), ["finalize_summary"]);
  await reporter.close();
  await anonymous.close();
});

Deno.test("MCP tools/call of a tool the caller may not use is refused with -32003 TOOL_NOT_PERMITTED and audited", async () => {
  const owner = `key:reporter`;
  const caller: Caller = { userId: null, owner };
  const app = await mcpApp({ MCP_LOOP_TOOL_POLICY: POLICY });
  const client = await inMemoryClient(app, caller);
  const marker = crypto.randomUUID();
  await assert.rejects(
    client.callTool({ name: "initialize_refinement_loop", arguments: { loop_type: marker } }),
    (error: RpcError) => {
      assert.equal(error.code, -32003);
      assert.equal(error.data?.code, "TOOL_NOT_PERMITTED");
      assert.equal(error.data?.tool, "initialize_refinement_loop");
      assert.match(error.message, /not permitted for caller "key:reporter"/);
      return true;
    },
  );
  await app.mcp.audit.flush();
  const rows = await (await sharedPglite()).query<{ success: boolean; error: string }>(
    "select success, error from mcp_events where caller = $1 and tool = 'initialize_refinement_loop' and input->>'loop_type' = $2",
    [owner, marker],
  );
  assert.equal(rows.length, 1);
  assert.equal(rows[0].success, false);
  assert.match(rows[0].error, /not permitted/);
  await client.close();
});

Deno.test("over HTTP an API key gets the policy named after it", async () => {
  const app = await mcpApp({
    MCP_LOOP_TOOL_POLICY: POLICY,
    MCP_LOOP_API_KEYS: `reporter=${REPORTER_KEY}`,
  });
  const server = serve(app);
  try {
    const client = await httpClient(server.url, { authorization: `Bearer ${REPORTER_KEY}` });
    const { tools } = await client.listTools() as { tools: { name: string }[] };
    assert.deepEqual(tools.map((t) => t.name), ["get_loop_status", "list_active_loops"]);
    const listed = await client.callTool({ name: "list_active_loops", arguments: {} });
    assert.notEqual(listed.isError, true);
    await assert.rejects(
      client.callTool({ name: "finalize_summary", arguments: {} }),
      (error: RpcError) => error.code === -32003,
    );
    await client.close();
  } finally {
    await server.close();
    await app.close();
  }
});
