/**
 * The remote MCP client against real servers over loopback HTTP: this
 * project's own endpoint in both eras (2026-07-28 by `server/discover`;
 * 2025-11-25 when the probe is refused as a 2025 server refuses it), a plain
 * SDK v2 server (`createMcpHandler`: pages, `x-mcp-header`, output schemas,
 * a `subscriptions/listen` stream), and the SDK v1 fixture with sessions
 * (a call aborted mid-way is cancelled on the server too).
 */
import assert from "node:assert/strict";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";
import { createJsonSchemaValidator } from "../../shared/mcp/json_schema_validator.ts";
import { RemoteMcpClient } from "../../shared/mcp/remote_client.ts";
import { RemoteMcpError } from "../../shared/mcp/remote_error.ts";
import { RemoteMcpFixture } from "../fakes/remote_mcp_fixture.ts";
import { mcpApp, serve } from "../support/mcp_fixture.ts";

/** Requests as sent (method and headers), and a fetch that can refuse `server/discover` as a 2025 server does. */
function recordingFetch({ refuseDiscover = false } = {}) {
  const sent: { method: string; headers: Headers }[] = [];
  const fetcher: typeof fetch = async (input, init) => {
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    sent.push({
      method: body?.method ?? init?.method ?? "GET",
      headers: new Headers(init?.headers),
    });
    if (refuseDiscover && body?.method === "server/discover") {
      const error = { code: -32000, message: "Bad Request: Server not initialized" };
      return Response.json({ jsonrpc: "2.0", id: null, error }, { status: 400 });
    }
    return await fetch(input, init);
  };
  return { sent, fetcher };
}

function newClient(
  url: string,
  options: Partial<ConstructorParameters<typeof RemoteMcpClient>[0]> = {},
) {
  return new RemoteMcpClient({
    url,
    timeoutMs: 10_000,
    validator: createJsonSchemaValidator(),
    ...options,
  });
}

for (const era of ["2026-07-28", "2025-11-25"]) {
  Deno.test(`this project's MCP endpoint, ${era}: tools listed, called, structured output checked, errors as errors`, async () => {
    const app = await mcpApp();
    const server = serve(app);
    const { sent, fetcher } = recordingFetch({ refuseDiscover: era === "2025-11-25" });
    const client = newClient(String(server.url), { fetch: fetcher });
    try {
      await client.connect();
      assert.equal(client.protocolVersion, era);
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      assert.ok(names.includes("list_active_loops") && names.includes("finalize_summary"));
      assert.ok(tools.find((tool) => tool.name === "list_active_loops")?.outputSchema);
      const loops = await client.callTool("list_active_loops", {});
      assert.equal(loops.isError, undefined);
      assert.equal(typeof loops.structuredContent, "object", "checked against its output schema");
      const failed = await client.callTool("get_loop_status", { loop_id: "ab12cd34" });
      assert.equal(failed.isError, true, "a tool's failure is a result");
      const unknown = await client.callTool("no_such_tool", {}).catch((e) => e);
      assert.ok(unknown instanceof RemoteMcpError && unknown.failure === "rpc");
      assert.match(unknown.message, /no_such_tool/);
      const call = sent.find((request) => request.method === "tools/call")!;
      assert.equal(call.headers.get("mcp-protocol-version"), era);
      assert.equal(call.headers.get("mcp-method"), era === "2026-07-28" ? "tools/call" : null);
    } finally {
      await client.close();
      await server.close();
      await app.close();
    }
  });
}

/** A plain SDK v2 server: three tools over two pages, one with `x-mcp-header`, one whose output breaks its schema. */
function sdkServer(sawRegion: string[]): Server {
  const server = new Server({ name: "plain-v2", version: "1" }, {
    capabilities: { tools: { listChanged: true } },
  });
  const pages = [
    [{
      name: "add",
      inputSchema: { type: "object" as const, properties: { a: { type: "number" } } },
      outputSchema: { type: "object" as const, properties: { sum: { type: "number" } } },
    }],
    [{
      name: "where",
      inputSchema: {
        type: "object" as const,
        properties: { region: { type: "string", "x-mcp-header": "Region" } },
      },
    }, {
      name: "liar",
      inputSchema: { type: "object" as const },
      outputSchema: { type: "object" as const, required: ["sum"] },
    }],
  ];
  server.setRequestHandler("tools/list", (request) => {
    const second = request.params?.cursor === "page-2";
    return { tools: pages[second ? 1 : 0], ...(second ? {} : { nextCursor: "page-2" }) };
  });
  server.setRequestHandler("tools/call", (request, ctx) => {
    const { name, arguments: args = {} } = request.params;
    if (name === "where") sawRegion.push(String(ctx.http?.req?.headers.get("mcp-param-region")));
    if (name === "add") {
      return { content: [{ type: "text", text: "3" }], structuredContent: { sum: 3 } };
    }
    return {
      content: [{ type: "text", text: `${name}: ${JSON.stringify(args)}` }],
      structuredContent: {},
    };
  });
  return server;
}

Deno.test("a plain SDK v2 server in 2026-07-28: pages, Mcp-Param headers, output schemas, list_changed on a listen stream", async () => {
  const sawRegion: string[] = [];
  const handler = createMcpHandler(() => sdkServer(sawRegion));
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => handler.fetch(req),
  );
  const [acknowledged, changed] = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
  const client = newClient(`http://127.0.0.1:${(http.addr as Deno.NetAddr).port}/mcp`, {
    onNotification: (method) => {
      if (method === "notifications/subscriptions/acknowledged") acknowledged.resolve();
      if (method === "notifications/tools/list_changed") changed.resolve();
    },
  });
  try {
    await client.connect();
    assert.equal(client.protocolVersion, "2026-07-28");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), ["add", "where", "liar"]);
    assert.deepEqual((await client.callTool("add", { a: 1 })).structuredContent, { sum: 3 });
    await client.callTool("where", { region: "eu-west" });
    assert.deepEqual(sawRegion, ["eu-west"]);
    const liar = await client.callTool("liar", {}).catch((e) => e);
    assert.match(String(liar?.message), /does not match the tool's output schema/);
    await acknowledged.promise; // the listen stream is open
    handler.notify.toolsChanged();
    await changed.promise;
  } finally {
    await client.close();
    await handler.close();
    await http.shutdown();
  }
});

Deno.test("the SDK v1 fixture with sessions: a call aborted mid-way stops on the server too", async () => {
  const fixture = RemoteMcpFixture.start();
  const client = newClient(fixture.url);
  try {
    await client.connect();
    assert.equal(client.protocolVersion, "2025-11-25");
    await client.listTools();
    const abort = new AbortController();
    const call = client.callTool("sleep", { ms: 60_000 }, { signal: abort.signal });
    await fixture.called("sleep");
    abort.abort(new Error("the caller gave up"));
    const error = await call.catch((e) => e);
    assert.ok(error instanceof RemoteMcpError && error.failure === "aborted");
    while (fixture.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.match((await client.callTool("echo", { text: "still" })).content[0].text ?? "", /still/);
  } finally {
    await client.close();
    await fixture.stop();
  }
});
