import assert from "node:assert/strict";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { listToolsFor } from "../../shared/mcp/mcp_tools.ts";
import type { Caller } from "../../shared/ports.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { sharedPglite } from "../support/pglite.ts";
import { inMemoryClient, mcpApp } from "../support/mcp_fixture.ts";

const keyCaller = (): Caller => ({ userId: null, owner: `key:${crypto.randomUUID()}` });

type LoopResult = { structuredContent: { id: string; status: string; score_history: number[] } };
/** The parts of MCP's Tool read here (the SDK's own types do not resolve under Deno's checker). */
type ListedTool = {
  name: string;
  inputSchema: {
    required?: string[];
    properties?: Record<string, unknown>;
    additionalProperties?: unknown;
  };
  outputSchema?: { type: string };
  annotations?: { readOnlyHint?: boolean };
};
type RpcError = { code: number; message: string };

Deno.test("tools/list shows the registry with input schemas, annotations and output schemas", async () => {
  const client = await inMemoryClient(await mcpApp());
  const { tools } = await client.listTools() as { tools: ListedTool[] };
  assert.deepEqual(tools.map((t) => t.name), [
    "finalize_summary",
    "initialize_refinement_loop",
    "decide_loop_next_action",
    "get_loop_status",
    "list_active_loops",
    "remember",
    "forget",
    "forget_session",
  ]);
  const decide = tools.find((t) => t.name === "decide_loop_next_action")!;
  assert.deepEqual(decide.inputSchema.required, ["loop_id", "current_score"]);
  assert.deepEqual((decide.inputSchema.properties as Record<string, unknown>).current_score, {
    type: "integer",
    minimum: 0,
    maximum: 100,
    description: "Quality score of the latest version, 0 to 100",
  });
  assert.equal(decide.outputSchema?.type, "object");
  assert.equal(tools.find((t) => t.name === "get_loop_status")!.annotations?.readOnlyHint, true);
  assert.equal(tools.find((t) => t.name === "list_active_loops")!.annotations?.readOnlyHint, true);
  assert.deepEqual(
    (tools.find((t) => t.name === "initialize_refinement_loop")!.inputSchema.properties as Record<
      string,
      { enum: string[] }
    >).loop_type.enum,
    ["plan", "spec", "build_plan", "build_code"],
  );
  await client.close();
});

Deno.test("the specification's sequences run over MCP with structured results", async () => {
  const client = await inMemoryClient(await mcpApp(), keyCaller());
  const init = await client.callTool({
    name: "initialize_refinement_loop",
    arguments: { loop_type: "spec" },
  }) as LoopResult;
  assert.equal(init.structuredContent.status, "initialized");
  const id = init.structuredContent.id;
  const statuses = [];
  for (const score of [70, 90]) {
    const result = await client.callTool({
      name: "decide_loop_next_action",
      arguments: { loop_id: id, current_score: score },
    }) as LoopResult;
    statuses.push(result.structuredContent.status);
  }
  assert.deepEqual(statuses, ["refine", "completed"]);
  const status = await client.callTool({ name: "get_loop_status", arguments: { loop_id: id } }) as
    & LoopResult
    & { content: { text: string }[] };
  assert.deepEqual(status.structuredContent.score_history, [70, 90]);
  assert.deepEqual(JSON.parse(status.content[0].text), status.structuredContent);
  await client.close();
});

Deno.test("a tool's failure is an isError result with a clear text", async () => {
  const client = await inMemoryClient(await mcpApp(), keyCaller());
  const result = await client.callTool({
    name: "get_loop_status",
    arguments: { loop_id: "deadbeef" },
  });
  assert.equal(result.isError, true);
  assert.match(
    (result.content as { text: string }[])[0].text,
    /Tool "get_loop_status" failed: Refinement loop "deadbeef" does not exist; start one with initialize_refinement_loop/,
  );
  await client.close();
});

Deno.test("invalid arguments are a tool error naming every bad field, so the model can fix them (SEP-1303)", async () => {
  const client = await inMemoryClient(await mcpApp());
  const result = await client.callTool({
    name: "decide_loop_next_action",
    arguments: { loop_id: "A1", current_score: 101 },
  });
  assert.equal(result.isError, true);
  const text = (result.content as { text: string }[])[0].text;
  assert.match(text, /^Invalid arguments for tool "decide_loop_next_action": /);
  assert.match(text, /loop_id: loop_id is the 8 lowercase hex characters/);
  assert.match(text, /current_score: current_score must be an integer from 0 to 100/);
  assert.match(text, /Fix them and call again/);
  await client.close();
});

Deno.test("a misspelt argument is refused by name, not dropped, and inputSchema says no other keys", async () => {
  const client = await inMemoryClient(await mcpApp());
  const result = await client.callTool({
    name: "get_loop_status",
    arguments: { loopId: "deadbeef" },
  });
  assert.equal(result.isError, true);
  const text = (result.content as { text: string }[])[0].text;
  assert.match(text, /loopId: Unrecognized key; the args are loop_id/);
  const { tools } = await client.listTools() as { tools: ListedTool[] };
  const status = tools.find((tool) => tool.name === "get_loop_status")!;
  assert.equal(status.inputSchema.additionalProperties, false);
  await client.close();
});

Deno.test("an unknown tool is a clear -32602 error", async () => {
  const client = await inMemoryClient(await mcpApp());
  await assert.rejects(client.callTool({ name: "nope", arguments: {} }), (e: RpcError) => {
    assert.ok(e instanceof McpError);
    assert.equal(e.code, ErrorCode.InvalidParams);
    // One prefix (the client's), not the old doubled "MCP error -32602: MCP error -32602: …".
    assert.equal(
      e.message,
      'MCP error -32602: Tool "nope" not found; tools/list shows the available tools',
    );
    return true;
  });
  await client.close();
});

Deno.test("every MCP tool call is audited in mcp_events with caller, input, output and duration", async () => {
  const caller = keyCaller();
  const app = await mcpApp();
  const client = await inMemoryClient(app, caller);
  await client.callTool({ name: "initialize_refinement_loop", arguments: { loop_type: "plan" } });
  await client.callTool({ name: "get_loop_status", arguments: { loop_id: "00000000" } });
  const refused = await client.callTool({ name: "get_loop_status", arguments: { loop_id: 7 } });
  assert.equal(refused.isError, true);
  await app.mcp.audit.flush();
  const rows = await (await sharedPglite()).query<
    {
      tool: string;
      success: boolean;
      source: string;
      input: unknown;
      output: { status?: string } | null;
      error: string | null;
      duration_ms: number;
    }
  >(
    "select tool, success, source, input, output, error, duration_ms from mcp_events where caller = $1 order by id",
    [caller.owner],
  );
  assert.deepEqual(rows.map((r) => [r.tool, r.success, r.source]), [
    ["initialize_refinement_loop", true, "mcp"],
    ["get_loop_status", false, "mcp"],
    ["get_loop_status", false, "mcp"],
  ]);
  assert.match(rows[2].error ?? "", /Invalid arguments for tool "get_loop_status": loop_id/);
  assert.deepEqual(rows[0].input, { loop_type: "plan" });
  assert.equal(rows[0].output?.status, "initialized");
  assert.match(rows[1].error ?? "", /does not exist/);
  assert.ok(rows.every((r) => r.duration_ms >= 0));
  await client.close();
});

Deno.test("callers only see their own loops over MCP", async () => {
  const app = await mcpApp();
  const [alice, bob] = [
    await inMemoryClient(app, keyCaller()),
    await inMemoryClient(app, keyCaller()),
  ];
  const { structuredContent } = await alice.callTool({
    name: "initialize_refinement_loop",
    arguments: { loop_type: "spec" },
  }) as LoopResult;
  const seen = await bob.callTool({
    name: "get_loop_status",
    arguments: { loop_id: structuredContent.id },
  });
  assert.equal(seen.isError, true);
  const listed = await bob.callTool({ name: "list_active_loops", arguments: {} }) as {
    structuredContent: { loops: unknown[] };
  };
  assert.deepEqual(listed.structuredContent.loops, []);
  await alice.close();
  await bob.close();
});

Deno.test("tools/list serves a copy of the registry's schemas: changing a listed tool leaves the registry's as it was", () => {
  const registry = new ToolRegistry();
  registry.register({
    name: "echo",
    description: "Echo the text",
    argsSchema: z.object({ text: z.string() }),
    run: ({ args }) => args.text,
  });
  const deps = { registry } as Parameters<typeof listToolsFor>[0];
  const caller = keyCaller();
  const listed = listToolsFor(deps, caller) as unknown as ListedTool[];
  assert.deepEqual(listed[0].inputSchema.required, ["text"]);
  listed[0].inputSchema.required!.push("injected");
  assert.deepEqual(registry.get("echo")!.inputSchema.required, ["text"]);
});
