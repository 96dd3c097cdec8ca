/**
 * The bundled client (`deno task build:client`) is one ES module with no
 * imports, and runs under Node against the real server: run, stream and a
 * bad request's error.
 */
import assert from "node:assert/strict";
import { bundleClient } from "../../shared/client/bundle.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { serve } from "../support/mcp_fixture.ts";
import { testApp } from "../support/test_app.ts";

const NODE = (() => {
  try {
    return new Deno.Command("node", { args: ["--version"] }).outputSync().success ? "node" : null;
  } catch {
    return null;
  }
})();
if (!NODE) console.warn("SKIPPED the bundled client under Node: no `node` on PATH");

const SCRIPT = `
import { createMcpLoopClient, McpLoopError } from "./mcp-loop-client.js";
const client = createMcpLoopClient({ url: process.argv[2] });
const request = { mode: "general", sessionId: "node-1", messages: [{ role: "user", content: "hi" }] };
const data = await client.run(request);
const events = [];
for await (const event of client.stream(request)) events.push(event.type);
let error;
try {
  await client.run({ ...request, messages: [] });
} catch (e) {
  error = { isClientError: e instanceof McpLoopError, code: e.code, status: e.status };
}
console.log(JSON.stringify({ stopReason: data.stopReason, events, error }));
`;

Deno.test({
  name: "the bundled client has no imports and runs under Node against the server",
  ignore: !NODE,
  fn: async () => {
    const bundle = await bundleClient();
    assert.doesNotMatch(bundle, /^\s*import\s/m, "one self-contained module");
    const dir = await Deno.makeTempDir({ prefix: "mcp-loop-client-" });
    await Deno.writeTextFile(`${dir}/mcp-loop-client.js`, bundle);
    await Deno.writeTextFile(`${dir}/main.mjs`, SCRIPT);
    const { app } = testApp({ planner: new ScriptedPlanner([{ tool: "finalize_summary" }]) });
    const server = serve(app);
    try {
      const output = await new Deno.Command(NODE!, {
        args: [`${dir}/main.mjs`, `${server.base}/mcp-loop`],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(output.stderr);
      assert.ok(output.success, stderr);
      const result = JSON.parse(new TextDecoder().decode(output.stdout));
      assert.equal(result.stopReason, "finalized");
      assert.deepEqual(result.events.slice(0, 2), ["run", "context"]);
      assert.deepEqual(result.events.at(-1), "result");
      assert.deepEqual(result.error, {
        isClientError: true,
        code: "VALIDATION_FAILED",
        status: 422,
      });
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
