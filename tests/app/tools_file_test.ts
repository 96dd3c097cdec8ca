/**
 * The one file an application edits: a copy of the project whose
 * functions/mcp-loop/tools.ts is replaced by one exporting a new tool, started
 * with `deno task start`, lists it over MCP, runs it over MCP, and the loop's
 * (offline) planner chooses it — with no other file changed.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  freePort,
  initializedDataDir,
  ROOT,
  spawnProcess,
  START_TIMEOUT_MS,
  tempDirRemovedAtExit,
} from "../support/process.ts";

const NEW_TOOLS = `import { z } from "zod";
import { defineTool } from "../../shared/tools/tool.ts";

export default [
  defineTool({
    name: "celsius_to_fahrenheit",
    description: "Convert a temperature in degrees celsius to fahrenheit.",
    argsSchema: z.object({ celsius: z.number().min(-273.15).max(10000) }),
    outputSchema: z.object({ fahrenheit: z.number() }),
    annotations: { readOnlyHint: true },
    run: ({ args }) => ({ fahrenheit: args.celsius * 9 / 5 + 32 }),
  }),
];
`;

/** A copy of what the project runs from (sources, migrations, configuration, lock file). */
async function copyProject(): Promise<string> {
  const dir = await tempDirRemovedAtExit("mcp-loop-tools-");
  for (const entry of ["functions", "shared", "supabase", "deno.json", "import_map.json"]) {
    const status = await new Deno.Command("cp", { args: ["-r", `${ROOT}${entry}`, dir] }).output();
    assert.ok(status.success, `copy ${entry}`);
  }
  try {
    await Deno.copyFile(`${ROOT}deno.lock`, `${dir}/deno.lock`);
  } catch { /* no lock file in this checkout */ }
  return dir;
}

Deno.test("a replaced tools.ts is listed and callable over MCP and chosen by the loop, nothing else changed", async () => {
  const dir = await copyProject();
  await Deno.writeTextFile(`${dir}/functions/mcp-loop/tools.ts`, NEW_TOOLS);
  const port = freePort();
  const server = spawnProcess(["task", "start"], {
    cwd: dir,
    env: { PORT: String(port), MCP_LOOP_DATA_DIR: await initializedDataDir() },
  });
  const base = `http://127.0.0.1:${port}`;
  const client = new Client({ name: "tools-file-test", version: "1.0.0" });
  try {
    await server.waitForLine((line) => line.includes("/mcp-loop/playground"));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp-loop/mcp`)));
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("celsius_to_fahrenheit"), names.join(", "));
    assert.ok(!names.includes("get_current_time"), "the example tool is gone with the file");

    const called = await client.callTool({
      name: "celsius_to_fahrenheit",
      arguments: { celsius: 100 },
    });
    assert.deepEqual(called.structuredContent, { fahrenheit: 212 });

    const res = await fetch(`${base}/mcp-loop`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        mode: "general",
        sessionId: "tools-file",
        messages: [{ role: "user", content: "Convert 21 degrees celsius to fahrenheit" }],
      }),
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    const step = body.data.intermediateResults.find((r: { tool: string }) =>
      r.tool === "celsius_to_fahrenheit"
    );
    assert.ok(step, JSON.stringify(body.data.plan));
    assert.deepEqual(step.input, { celsius: 21 });
    assert.ok(Math.abs(step.output.fahrenheit - 69.8) < 1e-9);
  } finally {
    await client.close().catch(() => {});
    server.child.kill("SIGTERM");
    await server.exited(START_TIMEOUT_MS);
    await server.kill();
    await Deno.remove(dir, { recursive: true });
  }
});
