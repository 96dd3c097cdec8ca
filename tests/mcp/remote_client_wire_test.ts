/**
 * The remote MCP client on the wire, against a scripted server in process
 * (tests/fakes/scripted_mcp_server.ts): what it sends in each era, how it
 * reads JSON and SSE answers, answers the server's own requests, renews an
 * expired session once, pages, cancels, and refuses what the specification
 * does not allow.
 */
import assert from "node:assert/strict";
import { createJsonSchemaValidator } from "../../shared/mcp/json_schema_validator.ts";
import { RemoteMcpClient } from "../../shared/mcp/remote_client.ts";
import { type JsonRpcMessage, RemoteMcpError } from "../../shared/mcp/remote_error.ts";
import { json, result, rpcError, ScriptedMcpServer, sse } from "../fakes/scripted_mcp_server.ts";

const TEXT = { content: [{ type: "text", text: "done" }] };
const TOOL = { name: "echo", inputSchema: { type: "object" } };

function clientOf(server: ScriptedMcpServer, timeoutMs = 5_000) {
  const notifications: string[] = [];
  const client = new RemoteMcpClient({
    url: "http://remote.test/mcp",
    headers: { authorization: "Bearer remote-key" },
    timeoutMs,
    validator: createJsonSchemaValidator(),
    fetch: server.fetch,
    onNotification: (method) => notifications.push(method),
  });
  return { client, notifications };
}

/** The RemoteMcpError `promise` rejects with. */
async function failure(promise: Promise<unknown>): Promise<RemoteMcpError> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof RemoteMcpError, `expected a RemoteMcpError, got ${error}`);
  return error;
}

Deno.test("a 2025 server: discover refused, then initialize, its session and version on every later request", async () => {
  const server = new ScriptedMcpServer();
  const { client } = clientOf(server);
  await client.connect();
  assert.equal(client.protocolVersion, "2025-11-25");
  const [probe, initialize, initialized] = server.seen;
  assert.equal(probe.body?.method, "server/discover");
  assert.equal(probe.headers.get("mcp-protocol-version"), "2026-07-28");
  assert.equal(initialize.body?.method, "initialize");
  assert.equal(initialize.body?.id, 0, "the probe's id is its own");
  assert.equal(initialize.headers.get("mcp-session-id"), null);
  assert.equal(initialize.headers.get("authorization"), "Bearer remote-key");
  assert.deepEqual(initialize.body?.params?.capabilities, {});
  assert.equal(initialized.body?.method, "notifications/initialized");
  assert.equal(initialized.headers.get("mcp-session-id"), "session-1");
  assert.equal(initialized.headers.get("mcp-protocol-version"), "2025-11-25");
  assert.equal(server.seen[3].method, "GET", "then the notification stream (405 here)");
  server.on("tools/call", (m) => json(result(m.id, TEXT)));
  assert.deepEqual((await client.callTool("echo", {})).content, TEXT.content);
  const call = server.seen.at(-1)!;
  assert.equal(call.headers.get("mcp-method"), null, "no 2026 header on a 2025 exchange");
  assert.equal(call.body?.params?._meta, undefined);
  // 2025-11-25 has no input_required: a result that says so is the result, never sent again.
  const odd = { ...TEXT, resultType: "input_required", requestState: "s" };
  server.on("tools/call", (m) => json(result(m.id, odd)));
  const calls = server.posted("tools/call").length;
  assert.deepEqual((await client.callTool("echo", {})).content, TEXT.content);
  assert.equal(server.posted("tools/call").length, calls + 1);
  await client.close();
  assert.equal(server.seen.at(-1)?.method, "DELETE");
  assert.equal(server.seen.at(-1)?.headers.get("mcp-session-id"), "session-1");
});

Deno.test("an SSE answer: a notification and the server's requests before the result are handled, the requests answered", async () => {
  const server = new ScriptedMcpServer();
  const { client, notifications } = clientOf(server);
  await client.connect();
  server.on("tools/call", (m) =>
    sse([
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
      { jsonrpc: "2.0", id: "srv-1", method: "ping" },
      { jsonrpc: "2.0", id: "srv-2", method: "elicitation/create", params: { message: "ok?" } },
      { jsonrpc: "2.0", id: "srv-3", method: "sampling/createMessage", params: {} },
      { jsonrpc: "2.0", id: "srv-4", method: "roots/list" },
      result(m.id, TEXT),
    ]));
  assert.deepEqual((await client.callTool("echo", {})).content, TEXT.content);
  assert.deepEqual(notifications, ["notifications/tools/list_changed"]);
  await server.until(() => server.posted("response").length === 4);
  const answers = server.posted("response").sort((a, b) =>
    String(a.id).localeCompare(String(b.id))
  );
  assert.deepEqual(answers[0], { jsonrpc: "2.0", id: "srv-1", result: {} });
  for (const answer of answers.slice(1)) {
    assert.deepEqual(answer.error, { code: -32601, message: "Method not found" });
  }
  const posted = server.seen.filter((r) => r.body?.id === "srv-1")[0];
  assert.equal(posted.headers.get("mcp-session-id"), "session-1");
  await client.close();
});

Deno.test("a stream cut before the answer is resumed with GET and Last-Event-ID after the server's retry", async () => {
  const server = new ScriptedMcpServer();
  const { client, notifications } = clientOf(server);
  await client.connect();
  await server.until(() => server.seen.some((r) => r.method === "GET"));
  const progress = { jsonrpc: "2.0", method: "notifications/progress", params: {} };
  server.on("tools/call", () => sse([progress], { retryMs: 5 }));
  server.on("GET", () => sse([result(server.posted("tools/call")[0].id, TEXT)], { prefix: "r" }));
  assert.deepEqual((await client.callTool("echo", {})).content, TEXT.content);
  const resumed = server.seen.at(-1)!;
  assert.equal(resumed.method, "GET");
  assert.equal(resumed.headers.get("last-event-id"), "e0");
  assert.equal(resumed.headers.get("mcp-session-id"), "session-1");
  assert.deepEqual(notifications, ["notifications/progress"]);
  server.on("tools/call", () => sse([progress], { retryMs: 5 }));
  const cut = await failure(client.callTool("echo", {}));
  assert.match(cut.message, /closed the event stream before answering/, "405: no resumption");
  await client.close();
});

Deno.test("a session the server ended (404) is started again once, and the request sent again", async () => {
  const server = new ScriptedMcpServer();
  const { client } = clientOf(server);
  await client.connect();
  server.expireSession();
  server.on("tools/call", (m) => json(result(m.id, TEXT)));
  assert.deepEqual((await client.callTool("echo", {})).content, TEXT.content);
  assert.equal(server.posted("initialize").length, 2);
  const calls = server.seen.filter((r) => r.body?.method === "tools/call");
  assert.deepEqual(calls.map((r) => r.headers.get("mcp-session-id")), ["session-1", "session-2"]);
  // A 404 again after the new session: no second renewal, the call fails.
  server.on("tools/call", () => json(rpcError(null, -32001, "Session not found"), 404));
  server.on("tools/call", () => json(rpcError(null, -32001, "Session not found"), 404));
  const error = await failure(client.callTool("echo", {}));
  assert.equal(error.httpStatus, 404);
  assert.equal(server.posted("initialize").length, 3, "one renewal for the one request");
  await client.close();
});

Deno.test("a JSON-RPC error answer is an rpc failure with its code; a non-2xx answer an http failure with its body", async () => {
  const server = new ScriptedMcpServer();
  const { client } = clientOf(server);
  await client.connect();
  server.on("tools/call", (m) => json(rpcError(m.id, -32602, "Unknown tool: nope")));
  const rpc = await failure(client.callTool("nope", {}));
  assert.equal(rpc.failure, "rpc");
  assert.equal(rpc.rpc?.code, -32602);
  assert.match(rpc.message, /Unknown tool: nope \(JSON-RPC -32602\)/);
  server.on("tools/call", () => new Response("the database is on fire", { status: 500 }));
  const http = await failure(client.callTool("echo", {}));
  assert.deepEqual([http.failure, http.httpStatus], ["http", 500]);
  assert.match(http.message, /HTTP 500: the database is on fire/);
  server.on("tools/call", (m) => json(rpcError(m.id, -32600, "Invalid Request: bad"), 400));
  const bad = await failure(client.callTool("echo", {}));
  assert.deepEqual([bad.httpStatus, bad.rpc?.code], [400, -32600]);
  server.on(
    "tools/call",
    () => new Response("<html>", { headers: { "content-type": "text/html" } }),
  );
  assert.equal((await failure(client.callTool("echo", {}))).failure, "protocol");
  await client.close();
});

Deno.test("tools/list is read page by page through the cursors; a page that repeats the one before ends it", async () => {
  const server = new ScriptedMcpServer();
  const { client } = clientOf(server);
  await client.connect();
  const tool = (name: string) => ({ name, inputSchema: { type: "object" } });
  server.on("tools/list", (m) => json(result(m.id, { tools: [tool("a")], nextCursor: "p2" })));
  server.on("tools/list", (m) => json(result(m.id, { tools: [tool("b")], nextCursor: "p3" })));
  server.on("tools/list", (m) => json(result(m.id, { tools: [tool("c")] })));
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ["a", "b", "c"]);
  const cursors = server.posted("tools/list").map((m) => m.params?.cursor);
  assert.deepEqual(cursors, [undefined, "p2", "p3"]);
  const again = (m: { id?: unknown }) =>
    json(result(m.id as number, { tools: [tool("a")], nextCursor: "again" }));
  server.on("tools/list", again).on("tools/list", again);
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ["a"]);
  assert.equal(server.posted("tools/list").length, 5, "the third repeat was never asked for");
  server.on("tools/list", (m) => json(result(m.id, { tools: [{ name: "no schema" }] })));
  assert.equal((await failure(client.listTools())).failure, "protocol");
  await client.close();
});

Deno.test("a call aborted mid-answer fails at once and is cancelled with notifications/cancelled; a call nobody answers times out", async () => {
  const server = new ScriptedMcpServer();
  const { client } = clientOf(server, 200);
  await client.connect();
  server.on("tools/call", () => sse([], { open: true }));
  const abort = new AbortController();
  const call = client.callTool("echo", {}, { signal: abort.signal });
  await server.until(() => server.posted("tools/call").length === 1);
  abort.abort(new Error("the user left"));
  const aborted = await failure(call);
  assert.equal(aborted.failure, "aborted");
  await server.until(() => server.posted("notifications/cancelled").length === 1);
  const [cancelled] = server.posted("notifications/cancelled");
  assert.equal(cancelled.params?.requestId, server.posted("tools/call")[0].id);
  assert.match(String(cancelled.params?.reason), /the user left/);
  server.on("tools/call", () => sse([], { open: true }));
  const timedOut = await failure(client.callTool("echo", {}));
  assert.equal(timedOut.failure, "timeout");
  assert.match(timedOut.message, /timed out/);
  await client.close();
});

Deno.test("a 2026-07-28 server: the envelope and the standard headers on every request; a result must say resultType", async () => {
  const server = new ScriptedMcpServer({ modern: true });
  const { client } = clientOf(server);
  await client.connect();
  assert.equal(client.protocolVersion, "2026-07-28");
  assert.equal(server.posted("initialize").length, 0);
  const declared = {
    type: "object",
    properties: { region: { type: "string", "x-mcp-header": "Region" } },
  };
  server.on("tools/list", (m) =>
    json(result(m.id, {
      tools: [{ name: "where", inputSchema: declared }, {
        name: "bad",
        inputSchema: { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } },
      }],
      resultType: "complete",
    })));
  const listed = await client.listTools();
  assert.deepEqual(listed.tools.map((t) => t.name), ["where"]);
  assert.deepEqual(listed.excluded.map((t) => t.name), ["bad"], "invalid x-mcp-header: not listed");
  server.on("tools/call", (m) => json(result(m.id, { ...TEXT, resultType: "complete" })));
  await client.callTool("where", { region: "Zürich" });
  const call = server.seen.at(-1)!;
  assert.equal(call.headers.get("mcp-protocol-version"), "2026-07-28");
  assert.equal(call.headers.get("mcp-method"), "tools/call");
  assert.equal(call.headers.get("mcp-name"), "where");
  assert.equal(call.headers.get("mcp-param-region"), `=?base64?${btoa("Z\xc3\xbcrich")}?=`);
  const meta = call.body?.params?._meta as Record<string, unknown>;
  assert.equal(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  assert.deepEqual(meta["io.modelcontextprotocol/clientCapabilities"], {});
  server.on("tools/call", (m) => json(result(m.id, TEXT)));
  assert.match((await failure(client.callTool("where", {}))).message, /no resultType/);
  server.on(
    "tools/call",
    (m) =>
      sse([
        { jsonrpc: "2.0", id: "srv-1", method: "ping" },
        result(m.id, { ...TEXT, resultType: "complete" }),
      ]),
  );
  await client.callTool("where", {});
  assert.equal(
    server.posted("response").length,
    0,
    "2026-07-28 has no server requests: none answered",
  );
  await client.close();
  assert.equal(server.seen.some((r) => r.method === "DELETE"), false, "no session to end");
});

Deno.test("a 2026-07-28 input_required with only a requestState is called again with it; input this client does not offer fails", async () => {
  const server = new ScriptedMcpServer({ modern: true });
  const { client } = clientOf(server);
  await client.connect();
  server.on("tools/list", (m) => json(result(m.id, { tools: [TOOL], resultType: "complete" })));
  await client.listTools();
  // Busy at first: the server hands back its state, and answers the call that echoes it.
  const busy = (state: string) => (m: JsonRpcMessage) =>
    json(result(m.id, { resultType: "input_required", requestState: state }));
  server.on("tools/call", busy("opaque-1")).on("tools/call", busy("opaque-2"))
    .on("tools/call", (m) => json(result(m.id, { ...TEXT, resultType: "complete" })));
  assert.deepEqual((await client.callTool("echo", { say: "hi" })).content, TEXT.content);
  const calls = server.posted("tools/call");
  assert.deepEqual(calls.map((c) => c.params?.requestState), [undefined, "opaque-1", "opaque-2"]);
  assert.equal(new Set(calls.map((c) => c.id)).size, 3, "each retry is a new request");
  assert.ok(calls.every((c) => (c.params?.arguments as { say: string }).say === "hi"));
  // A server that never stops asking is refused after three retries.
  for (let i = 0; i < 4; i++) server.on("tools/call", busy("again"));
  const before = server.posted("tools/call").length;
  assert.match((await failure(client.callTool("echo", {}))).message, /input_required 4 times/);
  assert.equal(server.posted("tools/call").length - before, 4);
  // Asking for elicitation, which this client does not declare, fails the call and names it.
  server.on("tools/call", (m) =>
    json(result(m.id, {
      resultType: "input_required",
      inputRequests: { who: { method: "elicitation/create", params: { message: "Name?" } } },
      requestState: "s",
    })));
  assert.match(
    (await failure(client.callTool("echo", {}))).message,
    /does not offer \(elicitation\/create\)/,
  );
  await client.close();
});

Deno.test("the discover probe: -32022 naming 2026-07-28 is sent again once; 401 and 5xx fail the connection", async () => {
  const corrected = new ScriptedMcpServer({ modern: true });
  corrected.on(
    "server/discover",
    (m) =>
      json({
        ...rpcError(m.id, -32022, "Unsupported"),
        error: { code: -32022, message: "Unsupported", data: { supported: ["2026-07-28"] } },
      }),
  );
  await clientOf(corrected).client.connect();
  assert.equal(corrected.posted("server/discover").length, 2);
  for (const status of [401, 503]) {
    const refusing = new ScriptedMcpServer();
    refusing.on("server/discover", () => json(rpcError(null, -32000, "no"), status));
    const error = await failure(clientOf(refusing).client.connect());
    assert.equal(error.httpStatus, status);
    assert.equal(refusing.posted("initialize").length, 0, "never an era verdict");
  }
});

Deno.test("a tool's output schema: structured content is required and must match, unless the result is an error", async () => {
  const server = new ScriptedMcpServer();
  const { client } = clientOf(server);
  await client.connect();
  const outputSchema = {
    type: "object",
    properties: { sum: { type: "number" } },
    required: ["sum"],
  };
  server.on("tools/list", (m) => json(result(m.id, { tools: [{ ...TOOL, outputSchema }] })));
  await client.listTools();
  server.on("tools/call", (m) => json(result(m.id, { ...TEXT, structuredContent: { sum: 3 } })));
  assert.deepEqual((await client.callTool("echo", {})).structuredContent, { sum: 3 });
  server.on("tools/call", (m) => json(result(m.id, TEXT)));
  assert.match(
    (await failure(client.callTool("echo", {}))).message,
    /did not return structured content/,
  );
  server.on("tools/call", (m) => json(result(m.id, { ...TEXT, structuredContent: { sum: "3" } })));
  assert.match(
    (await failure(client.callTool("echo", {}))).message,
    /does not match the tool's output schema/,
  );
  server.on("tools/call", (m) => json(result(m.id, { ...TEXT, isError: true })));
  assert.equal((await client.callTool("echo", {})).isError, true);
  await client.close();
});
