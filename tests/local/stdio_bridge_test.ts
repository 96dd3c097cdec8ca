/**
 * The stdio bridge (`mcp:stdio` when `deno task start` holds the data folder)
 * in process, over in-memory pipes, to the app on loopback: a 2025-11-25
 * desktop client that declares elicitation gets the server's session through
 * the bridge, is sent the approval question while its call waits, and its
 * answer runs the call; the session ends when the bridge stops.
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

Deno.test("the stdio bridge carries the session: a 2025-11-25 desktop client is asked to approve a call, and its answer runs it", async () => {
  const t = await approvalsSetup();
  const client = desktop();
  const bridge = bridgeStdio({
    url: t.url.href,
    token: KEYS.alice,
    logger: SILENT_LOGGER,
    transport: client.transport,
  });
  try {
    client.send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: "desktop", version: "1" },
      },
    });
    await client.next((m) => m.id === 0);
    client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
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
