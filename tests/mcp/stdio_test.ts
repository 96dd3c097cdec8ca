import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import appTools from "../../functions/mcp-loop/tools.ts";
import { initializedDataDir } from "../support/process.ts";

const root = new URL("../../", import.meta.url).pathname;

Deno.test("deno task mcp:stdio serves the same tools to a desktop client over stdio", async () => {
  const client = new Client({ name: "desktop", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["task", "--quiet", "--cwd", root, "mcp:stdio"],
      env: {
        ...Deno.env.toObject(),
        MCP_LOOP_DATA_DIR: await initializedDataDir(),
        MCP_LOOP_LOG_LEVEL: "warn",
      },
      stderr: "ignore",
    }),
  );
  try {
    const { tools } = await client.listTools() as { tools: { name: string }[] };
    // The built-in tools, then the application's own (whatever functions/mcp-loop/tools.ts holds).
    assert.deepEqual(tools.map((t) => t.name), [
      "finalize_summary",
      "initialize_refinement_loop",
      "decide_loop_next_action",
      "get_loop_status",
      "list_active_loops",
      "remember",
      "forget",
      "forget_session",
      ...appTools.map((tool) => tool.name),
    ]);
    const started = await client.callTool({
      name: "initialize_refinement_loop",
      arguments: { loop_type: "build_code" },
    }) as {
      structuredContent: { id: string; threshold: number };
    };
    assert.equal(started.structuredContent.threshold, 95);
    const decided = await client.callTool({
      name: "decide_loop_next_action",
      arguments: { loop_id: started.structuredContent.id, current_score: 96 },
    }) as { structuredContent: { status: string } };
    assert.equal(decided.structuredContent.status, "completed");
  } finally {
    await client.close();
  }
});
