import assert from "node:assert/strict";
import { httpClient, mcpApp, serve } from "../support/mcp_fixture.ts";

type Structured = { structuredContent: { id: string; status: string; loops?: { id: string }[] } };

const rpc = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...headers,
  },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

Deno.test("an MCP client over loopback HTTP lists the tools and runs a refinement loop", async () => {
  const server = serve(await mcpApp());
  try {
    const client = await httpClient(server.url);
    const { tools } = await client.listTools() as { tools: { name: string }[] };
    assert.ok(tools.some((t) => t.name === "decide_loop_next_action"));
    const init = await client.callTool({
      name: "initialize_refinement_loop",
      arguments: { loop_type: "spec" },
    }) as Structured;
    const next = await client.callTool({
      name: "decide_loop_next_action",
      arguments: { loop_id: init.structuredContent.id, current_score: 70 },
    }) as Structured;
    assert.equal(next.structuredContent.status, "refine");
    await client.close();
  } finally {
    await server.close();
  }
});

Deno.test("after preloadMcp (what the local server calls once its database is ready) the endpoint answers", async () => {
  const app = await mcpApp();
  await app.preloadMcp();
  await app.preloadMcp(); // a second call finds it loaded
  const res = await app.fetch(
    new Request(
      "http://localhost/mcp-loop/mcp",
      rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    ),
  );
  assert.equal(res.status, 200);
  const { result } = await res.json();
  assert.ok(result.tools.some((t: { name: string }) => t.name === "finalize_summary"));
});

Deno.test("50 parallel tools/call over HTTP all succeed", async () => {
  const server = serve(await mcpApp());
  try {
    const client = await httpClient(server.url);
    const results = await Promise.all(
      Array.from(
        { length: 50 },
        () =>
          client.callTool({
            name: "initialize_refinement_loop",
            arguments: { loop_type: "plan" },
          }) as Promise<Structured & { isError?: boolean }>,
      ),
    );
    assert.equal(
      results.filter((r) => !r.isError && r.structuredContent.status === "initialized").length,
      50,
    );
    assert.equal(new Set(results.map((r) => r.structuredContent.id)).size, 50);
    await client.close();
  } finally {
    await server.close();
  }
});

Deno.test("malformed JSON-RPC gets the right error codes", async () => {
  const app = await mcpApp();
  const url = "http://localhost/mcp-loop/mcp";
  const send = async (body: unknown) => {
    const res = await app.fetch(new Request(url, rpc(body)));
    return { status: res.status, json: await res.json() };
  };
  const parse = await send("{not json");
  assert.deepEqual([parse.status, parse.json.error.code], [400, -32700]);
  const unknown = await send({ jsonrpc: "2.0", id: 1, method: "tools/explode", params: {} });
  assert.deepEqual([unknown.status, unknown.json.error.code], [200, -32601]);
  const badParams = await send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: 42 },
  });
  assert.equal(badParams.json.error.code, -32602);
  assert.equal(
    badParams.json.error.message,
    'Invalid params: tools/call needs "name", the name of a tool from tools/list (got a number)',
  );
  // Arguments that fail the tool's schema are the tool's error, for the model to fix.
  const badArgs = await send({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "get_loop_status", arguments: { loop_id: 7 } },
  });
  assert.equal(badArgs.json.result.isError, true);
  assert.match(badArgs.json.result.content[0].text, /loop_id/);
  const notRpc = await send({ hello: "world" });
  assert.deepEqual([notRpc.status, notRpc.json.error.code], [400, -32600]);
  const emptyBatch = await send([]);
  assert.deepEqual([emptyBatch.status, emptyBatch.json.error.code], [400, -32600]);
});

Deno.test("a request with a foreign Host or Origin is refused (DNS rebinding)", async () => {
  const app = await mcpApp();
  const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
  const foreignHost = await app.fetch(
    new Request("http://attacker.example/mcp-loop/mcp", rpc(list)),
  );
  assert.equal(foreignHost.status, 403);
  assert.match((await foreignHost.json()).error.message, /Host "attacker.example" is not allowed/);
  const foreignOrigin = await app.fetch(
    new Request(
      "http://localhost:8000/mcp-loop/mcp",
      rpc(list, { origin: "http://attacker.example" }),
    ),
  );
  assert.equal(foreignOrigin.status, 403);
  // The whole origin counts, not its host: another port on this machine is another origin.
  const otherPort = await app.fetch(
    new Request(
      "http://localhost:8000/mcp-loop/mcp",
      rpc(list, { origin: "http://localhost:9999" }),
    ),
  );
  assert.equal(otherPort.status, 403);
  assert.match((await otherPort.json()).error.message, /Origin "http:\/\/localhost:9999"/);
  const sameOrigin = await app.fetch(
    new Request(
      "http://localhost:8000/mcp-loop/mcp",
      rpc(list, { origin: "http://localhost:8000" }),
    ),
  );
  assert.equal(sameOrigin.status, 200);
  const inspector = await mcpApp({}, {}, { mcp: { allowedOrigins: ["http://localhost:6274"] } });
  const listed = await inspector.fetch(
    new Request(
      "http://localhost:8000/mcp-loop/mcp",
      rpc(list, { origin: "http://localhost:6274" }),
    ),
  );
  assert.equal(listed.status, 200);
  const configured = await mcpApp({ MCP_LOOP_ALLOWED_HOSTS: "mcp.example.com" });
  const allowed = await configured.fetch(
    new Request("https://mcp.example.com/mcp-loop/mcp", rpc(list)),
  );
  assert.equal(allowed.status, 200);
});

Deno.test("with API keys, a missing or wrong key gets 401 with WWW-Authenticate, and keys scope the loops", async () => {
  const app = await mcpApp({
    MCP_LOOP_API_KEYS: "alice=alice-key-0123456789, bob=bob-key-0123456789ab",
  });
  const server = serve(app);
  try {
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const missing = await fetch(server.url, rpc(list));
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="mcp-loop"');
    await missing.body?.cancel();
    const wrong = await fetch(
      server.url,
      rpc(list, { authorization: "Bearer wrong-key-000000000" }),
    );
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
    await wrong.body?.cancel();

    const alice = await httpClient(server.url, { authorization: "Bearer alice-key-0123456789" });
    const bob = await httpClient(server.url, { authorization: "Bearer bob-key-0123456789ab" });
    const { structuredContent } = await alice.callTool({
      name: "initialize_refinement_loop",
      arguments: { loop_type: "spec" },
    }) as Structured;
    const fromBob = await bob.callTool({
      name: "get_loop_status",
      arguments: { loop_id: structuredContent.id },
    }) as { isError?: boolean };
    assert.equal(fromBob.isError, true);
    const fromAlice = await alice.callTool({
      name: "list_active_loops",
      arguments: {},
    }) as Structured;
    assert.deepEqual(fromAlice.structuredContent.loops?.map((l) => l.id), [structuredContent.id]);
    await alice.close();
    await bob.close();
  } finally {
    await server.close();
  }
});

Deno.test("GET, and DELETE without a session, get 405: the endpoint offers no GET stream", async () => {
  const app = await mcpApp();
  for (const method of ["GET", "DELETE"]) {
    const res = await app.fetch(
      new Request("http://localhost/mcp-loop/mcp", {
        method,
        headers: { accept: "text/event-stream" },
      }),
    );
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get("allow"), "POST, OPTIONS");
    await res.body?.cancel();
  }
});
