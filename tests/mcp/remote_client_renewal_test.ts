/**
 * The remote MCP client's 2025-11-25 session renewal under concurrency, and
 * its notifications bounded like its requests: against a fake `fetch` that,
 * like the real one, rejects when its signal aborts.
 */
import assert from "node:assert/strict";
import { createJsonSchemaValidator } from "../../shared/mcp/json_schema_validator.ts";
import { RemoteMcpClient } from "../../shared/mcp/remote_client.ts";

type Handler = (body: Record<string, unknown>, headers: Headers) => Promise<Response>;

/** A fetch over `handle` that rejects when the request's signal aborts, as fetch does. */
function fakeFetch(handle: Handler, sent: string[]): typeof fetch {
  return (_url, init) => {
    const headers = new Headers(init?.headers);
    if (init?.method === "GET") return Promise.resolve(new Response(null, { status: 405 }));
    if (init?.method === "DELETE") return Promise.resolve(new Response(null, { status: 200 }));
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    sent.push(`${body.method ?? "response"} ${headers.get("mcp-session-id") ?? "-"}`);
    const signal = init?.signal;
    return new Promise((resolve, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      handle(body, headers).then(resolve, reject);
    });
  };
}

const answer = (id: unknown, result: Record<string, unknown>, headers?: HeadersInit) =>
  Response.json({ jsonrpc: "2.0", id, result }, { headers });

/** A 2025-11-25 server whose sessions the test ends, and whose `initialize` waits for `gate`. */
function legacyServer() {
  const state = { session: "s0", count: 0, gate: Promise.resolve(), arrived: () => {} };
  const handle: Handler = async (body, headers) => {
    if (body.method === "server/discover") return new Response("{}", { status: 400 });
    if (body.method === "initialize") {
      state.arrived();
      await state.gate;
      state.session = `s${++state.count}`;
      return answer(body.id, { protocolVersion: "2025-11-25", capabilities: { tools: {} } }, {
        "mcp-session-id": state.session,
      });
    }
    if (body.id === undefined) return new Response(null, { status: 202 });
    const id = headers.get("mcp-session-id");
    if (id !== state.session) {
      return new Response(id ? "session gone" : "no session", { status: id ? 404 : 400 });
    }
    return answer(body.id, { tools: [] });
  };
  return { state, handle };
}

Deno.test("remote client: requests that find the session gone, or start while it is renewed, share one new initialize and carry its id", async () => {
  const server = legacyServer();
  const sent: string[] = [];
  const client = new RemoteMcpClient({
    url: "http://remote.test/mcp",
    timeoutMs: 30_000,
    validator: createJsonSchemaValidator(),
    fetch: fakeFetch(server.handle, sent),
  });
  await client.connect();
  let open!: () => void;
  server.state.gate = new Promise((resolve) => open = resolve);
  const renewing = new Promise<void>((resolve) => server.state.arrived = resolve);
  server.state.session = "expired";
  const first = client.request("tools/list", {});
  // The first request's 404 starts the renewal, which waits at the gate; the second starts then.
  await renewing;
  const second = client.request("tools/list", {});
  open();
  assert.deepEqual(await Promise.all([first, second]), [{ tools: [] }, { tools: [] }]);
  assert.equal(server.state.count, 2, "one initialize at connect, one renewal");
  assert.deepEqual(sent.filter((line) => line.startsWith("tools/list")), [
    "tools/list s1",
    "tools/list s2",
    "tools/list s2",
  ]);
  await client.close({ endSession: false });
});

Deno.test("remote client: a server that never answers notifications/initialized fails connect at the timeout", async () => {
  const server = legacyServer();
  const silent: Handler = (body, headers) =>
    body.method === "notifications/initialized"
      ? new Promise<Response>(() => {})
      : server.handle(body, headers);
  const client = new RemoteMcpClient({
    url: "http://remote.test/mcp",
    timeoutMs: 50,
    validator: createJsonSchemaValidator(),
    fetch: fakeFetch(silent, []),
  });
  await assert.rejects(client.connect(), /timed out.*notifications\/initialized/);
  await client.close({ endSession: false });
});
