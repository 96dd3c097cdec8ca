/**
 * The stdio bridge (`mcp:stdio` while `deno task start` holds the data
 * folder) in process, over in-memory pipes and a fake endpoint whose answers
 * the test releases: every request read is answered, even when the client
 * closes stdin before the server has answered.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { createConsoleLogger } from "../../shared/log/console_logger.ts";
import { bridgeStdio } from "../../shared/local/stdio_bridge.ts";

/** A fake MCP endpoint: each POST waits until `release`, then echoes its id with the method. */
function heldEndpoint() {
  const held: (() => void)[] = [];
  const posted: string[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    const message = JSON.parse(String(init?.body));
    posted.push(message.method);
    await new Promise<void>((resolve) => held.push(resolve));
    if (message.id === undefined) return new Response(null, { status: 202 });
    return Response.json({ jsonrpc: "2.0", id: message.id, result: { echo: message.method } });
  };
  return {
    fetch: fetch as typeof globalThis.fetch,
    posted,
    release: () => held.splice(0).forEach((go) => go()),
  };
}

Deno.test("the bridge answers every request read, also when stdin closes before the answers", async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const written: string[] = [];
  stdout.on("data", (chunk) => written.push(...String(chunk).split("\n").filter(Boolean)));
  const endpoint = heldEndpoint();
  const bridge = bridgeStdio({
    url: "http://server.test/mcp-loop/mcp",
    logger: createConsoleLogger({ level: "silent" }),
    transport: new StdioServerTransport(stdin, stdout),
    output: stdout,
    fetch: endpoint.fetch,
  });
  let closed = false;
  void bridge.closed.then(() => closed = true);
  for (const [id, method] of [[1, "tools/list"], [2, "resources/list"]] as const) {
    stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method }) + "\n");
  }
  stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  stdin.end();
  // Both requests and the notification reached the endpoint; none is answered yet.
  while (endpoint.posted.length < 3) await new Promise((resolve) => setTimeout(resolve, 0));
  await Promise.resolve();
  assert.equal(closed, false, "the bridge waits for the answers it owes");
  endpoint.release();
  await bridge.closed;
  assert.deepEqual(
    written.map((line) => JSON.parse(line)).sort((a, b) => a.id - b.id),
    [
      { jsonrpc: "2.0", id: 1, result: { echo: "tools/list" } },
      { jsonrpc: "2.0", id: 2, result: { echo: "resources/list" } },
    ],
  );
});
