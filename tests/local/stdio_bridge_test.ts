/**
 * The stdio bridge (`mcp:stdio` when `deno task start` holds the data folder)
 * in process, over in-memory pipes, to the app on loopback: a 2025-11-25
 * desktop client that declares elicitation gets the server's session through
 * the bridge, is sent the approval question while its call waits, and its
 * answer runs the call; the session ends when the bridge stops. And every
 * request read is answered, even when the client closes stdin before the
 * server has answered.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { bridgeStdio } from "../../shared/local/stdio_bridge.ts";
import { SILENT_LOGGER } from "../../shared/ports.ts";
import { sharedPglite } from "../support/pglite.ts";
import { approvalsSetup, KEYS } from "../support/mcp_approvals_fixture.ts";

/** The desktop client's side of the pipes: send a message, read the next one that matches. */
function desktop() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  const waiting: {
    match: (m: Record<string, unknown>) => boolean;
    resolve: (m: unknown) => void;
  }[] = [];
  let buffer = "";
  stdout.on("data", (chunk: Uint8Array) => {
    buffer += new TextDecoder().decode(chunk);
    let end;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const message = JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      const taker = waiting.findIndex((w) => w.match(message));
      if (taker >= 0) waiting.splice(taker, 1)[0].resolve(message);
      else lines.push(message);
    }
  });
  return {
    transport: new StdioServerTransport(stdin, stdout),
    output: stdout,
    send: (message: unknown) => stdin.write(`${JSON.stringify(message)}\n`),
    next: <T>(match: (m: Record<string, unknown>) => boolean): Promise<T> => {
      const seen = lines.findIndex(match);
      if (seen >= 0) return Promise.resolve(lines.splice(seen, 1)[0] as T);
      return new Promise((resolve) =>
        waiting.push({ match, resolve: resolve as (m: unknown) => void })
      );
    },
  };
}

/** The bridge to the approvals app for `client`, and the client's MCP handshake. */
function bridgeFor(url: URL, client: ReturnType<typeof desktop>) {
  return bridgeStdio({
    url: url.href,
    token: KEYS.alice,
    logger: SILENT_LOGGER,
    transport: client.transport,
    output: client.output,
  });
}

async function handshake(
  client: ReturnType<typeof desktop>,
  name: string,
  capabilities: Record<string, unknown>,
): Promise<void> {
  client.send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name, version: "1" } },
  });
  await client.next((m) => m.id === 0);
  client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

Deno.test("the stdio bridge carries the session: a 2025-11-25 desktop client is asked to approve a call, and its answer runs it", async () => {
  const t = await approvalsSetup();
  const client = desktop();
  const bridge = bridgeFor(t.url, client);
  try {
    await handshake(client, "desktop", { elicitation: { form: {} } });
    client.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "delete_invoice", arguments: { id: "bridged" } },
    });
    const question = await client.next<{ id: string; params: { message: string } }>((m) =>
      m.method === "elicitation/create"
    );
    assert.match(question.params.message, /"delete_invoice"/);
    client.send({
      jsonrpc: "2.0",
      id: question.id,
      result: { action: "accept", content: { approve: true } },
    });
    const result = await client.next<{ result: { isError?: boolean } }>((m) => m.id === 1);
    assert.equal(result.result.isError, undefined, JSON.stringify(result));
    assert.deepEqual(t.calls, ["delete:bridged"]);
  } finally {
    await bridge.stop();
    await t.close();
  }
  const [{ count }] = await (await sharedPglite()).query<{ count: number }>(
    "select count(*)::int as count from public.mcp_sessions where owner = 'key:alice' and client_info->>'name' = 'desktop'",
  );
  assert.equal(count, 0, "the session ended with the bridge");
});

Deno.test("through the bridge, a desktop client that cannot elicit is told what client to use, not to use stdio", async () => {
  const t = await approvalsSetup();
  const client = desktop();
  const bridge = bridgeFor(t.url, client);
  try {
    await handshake(client, "plain-desktop", {});
    client.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "delete_invoice", arguments: { id: "kept" } },
    });
    const answer = await client.next<{
      result: { isError?: boolean; content: { text: string }[] };
    }>((m) => m.id === 1);
    const said = answer.result.content.map((c) => c.text).join("\n");
    assert.equal(answer.result.isError, true);
    assert.match(said, /did not declare the elicitation capability/);
    assert.doesNotMatch(said, /stdio|without a session/);
    assert.deepEqual(t.calls, []);
  } finally {
    await bridge.stop();
    await t.close();
  }
});

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
    logger: SILENT_LOGGER,
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
