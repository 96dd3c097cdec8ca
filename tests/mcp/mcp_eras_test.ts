/**
 * Every MCP method over loopback HTTP through the SDK's own clients, in both
 * protocol eras — a v2 client pinned to 2026-07-28 (stateless, per-request
 * envelope) and a v1 client speaking 2025-11-25 (`initialize`) — for two
 * callers who never see each other's loops or sessions.
 */
import assert from "node:assert/strict";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createJsonSchemaValidator } from "../../shared/mcp/json_schema_validator.ts";
import { mcpApp, serve } from "../support/mcp_fixture.ts";
import { post, validBody } from "../support/test_app.ts";

const KEYS = { alice: "alice-key-0123456789abcdef", bob: "bob-key-0123456789abcdefgh" };

/** The methods both clients have, as used here. */
interface McpClient {
  getInstructions(): string | undefined;
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<{ resources: { uri: string; title?: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  readResource(
    params: { uri: string },
  ): Promise<{ contents: { text?: string; mimeType?: string }[] }>;
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
  getPrompt(
    params: { name: string; arguments: Record<string, string> },
  ): Promise<{ messages: { content: { text?: string } }[] }>;
  complete(params: unknown): Promise<{ completion: { values: string[] } }>;
  close(): Promise<void>;
}

const ERAS: Record<string, (url: URL, key: string) => Promise<McpClient>> = {
  "2026-07-28": async (url, key) => {
    const client = new ModernClient({ name: "eras-test", version: "1" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      jsonSchemaValidator: createJsonSchemaValidator(),
    });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    assert.equal(client.getProtocolEra(), "modern");
    return client as unknown as McpClient;
  },
  "2025-11-25": async (url, key) => {
    const client = new LegacyClient({ name: "eras-test", version: "1" }, {
      jsonSchemaValidator: createJsonSchemaValidator(),
    });
    await client.connect(
      new LegacyTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    return client as unknown as McpClient;
  },
};

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

for (const [era, connect] of Object.entries(ERAS)) {
  Deno.test(`MCP ${era}: tools, resources, prompts and completions, scoped to each caller`, async () => {
    const app = await mcpApp({
      MCP_LOOP_API_KEYS: `alice=${KEYS.alice},bob=${KEYS.bob}`,
      FSDD_LOOP_SPEC_THRESHOLD: "88",
    });
    const server = serve(app);
    const [alice, bob] = [
      await connect(server.url, KEYS.alice),
      await connect(server.url, KEYS.bob),
    ];
    try {
      assert.match(alice.getInstructions() ?? "", /refinement-loop tools/);
      const tools = (await alice.listTools()).tools.map((tool) => tool.name);
      assert.ok(tools.includes("decide_loop_next_action"));

      // Tools, with a bad argument answered as a tool error the model can fix.
      const started = await alice.callTool({
        name: "initialize_refinement_loop",
        arguments: { loop_type: "spec" },
      }) as { structuredContent: { id: string } };
      const id = started.structuredContent.id;
      const bad = await alice.callTool({ name: "get_loop_status", arguments: { loop_id: 7 } });
      assert.equal((bad as { isError?: boolean }).isError, true);
      assert.match(text(bad), /Invalid arguments for tool "get_loop_status": loop_id/);

      // Resources: listed and readable by their owner only.
      const loopUri = `mcp-loop://loops/${id}`;
      assert.ok((await alice.listResources()).resources.some((r) => r.uri === loopUri));
      assert.ok(!(await bob.listResources()).resources.some((r) => r.uri === loopUri));
      const templates = (await alice.listResourceTemplates()).resourceTemplates;
      assert.deepEqual(templates.map((t) => t.uriTemplate), [
        "mcp-loop://loops/{loop_id}",
        "mcp-loop://sessions/{session_id}/messages",
      ]);
      const read = await alice.readResource({ uri: loopUri });
      assert.equal(read.contents[0].mimeType, "application/json");
      assert.deepEqual(JSON.parse(read.contents[0].text!).threshold, 88);
      await assert.rejects(bob.readResource({ uri: loopUri }), (error: { code: number }) => {
        assert.equal(error.code, -32602);
        return true;
      });

      // A session of alice's, stored by a loop turn, is hers alone.
      const session = `eras-${era}-${crypto.randomUUID().slice(0, 8)}`;
      const turn = await app.fetch(post(validBody("remember the blue door", session), {
        headers: { authorization: `Bearer ${KEYS.alice}` },
      }));
      assert.equal(turn.status, 200);
      const messagesUri = `mcp-loop://sessions/${encodeURIComponent(session)}/messages`;
      const messages = JSON.parse(
        (await alice.readResource({ uri: messagesUri })).contents[0].text!,
      );
      assert.equal(messages.sessionId, session);
      assert.equal(messages.messages[0].content, "remember the blue door");
      assert.equal(messages.messages[0].embedding, undefined);
      await assert.rejects(bob.readResource({ uri: messagesUri }));

      // Prompts.
      const prompts = (await alice.listPrompts()).prompts.map((p) => p.name);
      assert.deepEqual(prompts, ["refine", "analyst", "candidate", "hiring", "general"]);
      const refine = await alice.getPrompt({ name: "refine", arguments: { loop_type: "spec" } });
      assert.match(refine.messages[0].content.text!, /completes at a score of 88 or more/);
      const general = await alice.getPrompt({
        name: "general",
        arguments: { message: "what is the door's colour?", session_id: session },
      });
      const planner = general.messages[0].content.text!;
      assert.match(planner, /You are a planning agent/);
      assert.match(planner, /"what is the door's colour\?"/);
      assert.match(planner, /remember the blue door/);
      // The caller's working memory, as the planner sees it every turn: hers, not bob's.
      await alice.callTool({
        name: "remember",
        arguments: { fact: "Her locker code is 4417" },
      });
      const withMemory = await alice.getPrompt({ name: "general", arguments: { message: "hi" } });
      assert.match(
        withMemory.messages[0].content.text!,
        /"workingMemory":.*locker code is 4417/s,
      );
      const bobs = await bob.getPrompt({ name: "general", arguments: { message: "hi" } });
      assert.doesNotMatch(bobs.messages[0].content.text!, /4417/);

      // Completions from the caller's own data.
      const ids = await alice.complete({
        ref: { type: "ref/resource", uri: "mcp-loop://loops/{loop_id}" },
        argument: { name: "loop_id", value: id.slice(0, 3) },
      });
      assert.ok(ids.completion.values.includes(id));
      const none = await bob.complete({
        ref: { type: "ref/resource", uri: "mcp-loop://loops/{loop_id}" },
        argument: { name: "loop_id", value: id.slice(0, 3) },
      });
      assert.ok(!none.completion.values.includes(id));
      const sessions = await alice.complete({
        ref: { type: "ref/prompt", name: "general" },
        argument: { name: "session_id", value: "eras-" },
      });
      assert.ok(sessions.completion.values.includes(session));
      const types = await alice.complete({
        ref: { type: "ref/prompt", name: "refine" },
        argument: { name: "loop_type", value: "build" },
      });
      assert.deepEqual(types.completion.values, ["build_plan", "build_code"]);
    } finally {
      await alice.close();
      await bob.close();
      await server.close();
      await app.close();
    }
  });
}

Deno.test("MCP 2026-07-28 on the wire: server/discover and list results carry caching hints", async () => {
  const app = await mcpApp();
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const send = async (method: string, params: Record<string, unknown> = {}) => {
    const res = await app.fetch(
      post({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }, {
        path: "/mcp-loop/mcp",
        headers: {
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
        },
      }),
    );
    assert.equal(res.status, 200, method);
    return (await res.json()).result;
  };
  const discovered = await send("server/discover");
  assert.ok(discovered.supportedVersions.includes("2026-07-28"));
  assert.match(discovered.instructions, /mcp-loop is the tool back end/);
  assert.deepEqual(Object.keys(discovered.capabilities).sort(), [
    "completions",
    "prompts",
    "resources",
    "tools",
  ]);
  const tools = await send("tools/list");
  assert.deepEqual([tools.ttlMs, tools.cacheScope], [60_000, "private"]);
  const prompts = await send("prompts/list");
  assert.deepEqual([prompts.ttlMs, prompts.cacheScope], [300_000, "public"]);
  const resources = await send("resources/list");
  assert.equal(resources.cacheScope, "private");
  await app.close();
});
