/**
 * The application's own tools (`functions/mcp-loop/tools.ts`): served over
 * MCP, chosen by the loop, and given a supabase-js client that acts as the
 * caller (checked on the wire with a recorded fetch).
 */
import assert from "node:assert/strict";
import { z } from "zod";
import tools from "../../functions/mcp-loop/tools.ts";
import { createCallerClient } from "../../shared/adapters/supabase/caller_client.ts";
import { createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import { isAppError } from "../../shared/errors.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { hs256Token, SECRET, USER_A, userClaims } from "../auth/test_tokens.ts";
import { recordingFetch } from "../fakes/recording_fetch.ts";
import { inMemoryClient } from "../support/mcp_fixture.ts";
import { post, testApp, validBody } from "../support/test_app.ts";

const ANON_KEY = "anon-key-of-the-project-0123456789";
const SERVICE_KEY = "service-role-key-never-to-be-sent-0123456789";

Deno.test("the shipped example tool is listed over MCP, callable, and chosen by the loop", async () => {
  const { app } = testApp({ tools });
  const client = await inMemoryClient(app);
  const listed = await client.listTools();
  const time = listed.tools.find((tool: { name: string }) => tool.name === "get_current_time") as
    | { annotations?: { readOnlyHint?: boolean } }
    | undefined;
  assert.ok(time, "get_current_time is listed");
  assert.equal(time.annotations?.readOnlyHint, true);
  const called = await client.callTool({
    name: "get_current_time",
    arguments: { time_zone: "Europe/Lisbon" },
  });
  const output = called.structuredContent as { time_zone: string; iso: string };
  assert.equal(output.time_zone, "Europe/Lisbon");
  assert.ok(!Number.isNaN(Date.parse(output.iso)));

  const res = await app.fetch(post(validBody("What is the current time in Europe/Lisbon?")));
  const json = await res.json();
  // The offline planner chooses it by its description (the optional zone stays its default).
  assert.equal(json.data.plan[0].tool, "get_current_time");
  assert.equal(json.data.intermediateResults[0].success, true);
});

Deno.test("a tool name used twice stops start-up, naming both sources", () => {
  const clash = defineTool({
    name: "finalize_summary",
    description: "mine",
    argsSchema: z.object({}),
    run: () => "x",
  });
  assert.throws(() => testApp({ tools: [clash] }), (error) => {
    assert.ok(isAppError(error));
    assert.equal(error.code, "CONFIG_INVALID");
    assert.match(
      error.message,
      /Cannot register tool "finalize_summary" from functions\/mcp-loop\/tools\.ts: the built-in tools already register/,
    );
    return true;
  });
});

/** A tool that reads the caller's `notes` table through the supabase client it is given. */
const readNotes = defineTool({
  name: "read_notes",
  description: "Read my notes",
  argsSchema: z.object({}),
  annotations: { readOnlyHint: true },
  run: async ({ supabase, sql }) => {
    if (!supabase) return { configured: false, sql: sql !== undefined };
    const { data, error } = await supabase.from("notes").select("id, body");
    if (error) throw new Error(error.message);
    return { configured: true, notes: data };
  },
});

function supabaseApp(
  env: Record<string, string> = {},
  { giveClient = true }: { giveClient?: boolean } = {},
) {
  const recorded = recordingFetch(() =>
    new Response(JSON.stringify([{ id: 1, body: "hi" }]), {
      headers: { "content-type": "application/json" },
    })
  );
  const { app } = testApp({
    tools: [readNotes],
    fetch: recorded.fetch,
    supabaseClient: giveClient ? createCallerClient : undefined,
  }, {
    SUPABASE_URL: "https://project.supabase.co",
    SUPABASE_ANON_KEY: ANON_KEY,
    SUPABASE_SERVICE_ROLE_KEY: SERVICE_KEY,
    SUPABASE_JWT_SECRET: SECRET,
    ...env,
  });
  return { app, requests: recorded.requests };
}

const mcpCall = (name: string, authorization?: string) =>
  post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } }, {
    path: "/mcp-loop/mcp",
    headers: {
      accept: "application/json, text/event-stream",
      ...(authorization ? { authorization } : {}),
    },
  });

Deno.test("a signed-in user's tool call reaches Supabase with that user's token, never the service key", async () => {
  const { app, requests } = supabaseApp();
  const token = await hs256Token(userClaims(USER_A));
  const res = await app.fetch(mcpCall("read_notes", `Bearer ${token}`));
  const body = await res.json();
  assert.deepEqual(body.result.structuredContent ?? JSON.parse(body.result.content[0].text), {
    configured: true,
    notes: [{ id: 1, body: "hi" }],
  });
  assert.equal(requests.length, 1);
  const [request] = requests;
  assert.equal(request.url, "https://project.supabase.co/rest/v1/notes?select=id%2Cbody");
  assert.equal(request.headers.authorization, `Bearer ${token}`);
  assert.equal(request.headers.apikey, ANON_KEY);
  assert.ok(!JSON.stringify(request.headers).includes(SERVICE_KEY));

  // Through the loop too: the same user's token.
  const loop = await app.fetch(post(validBody("read my notes"), {
    headers: { authorization: `Bearer ${token}` },
  }));
  assert.equal(loop.status, 200);
  assert.equal(requests.at(-1)!.headers.authorization, `Bearer ${token}`);
});

Deno.test("an anonymous caller's client carries only the anon key", async () => {
  const { app, requests } = supabaseApp({ MCP_LOOP_REQUIRE_AUTH: "false" });
  const res = await app.fetch(mcpCall("read_notes"));
  assert.equal(res.status, 200);
  const [request] = requests;
  assert.equal(request.headers.apikey, ANON_KEY);
  assert.equal(request.headers.authorization, `Bearer ${ANON_KEY}`);
  assert.ok(!JSON.stringify(request.headers).includes(SERVICE_KEY));
});

Deno.test("with Supabase settings but no supabaseClient from the application, tools get no supabase", async () => {
  // What the shipped functions/mcp-loop/tools.ts does: supabase-js stays out of the bundle.
  const { app, requests } = supabaseApp({ MCP_LOOP_REQUIRE_AUTH: "false" }, { giveClient: false });
  const res = await app.fetch(mcpCall("read_notes"));
  const body = await res.json();
  assert.deepEqual(JSON.parse(body.result.content[0].text), { configured: false, sql: true });
  assert.equal(requests.length, 0);
});

Deno.test("without Supabase settings a tool gets no supabase client, and still the database port", async () => {
  const app = createApp(loadConfig({ MCP_LOOP_DATA_DIR: "memory://" }), {
    tools: [readNotes],
    sql: testApp().sql,
  });
  const client = await inMemoryClient(app);
  const result = await client.callTool({ name: "read_notes", arguments: {} });
  assert.deepEqual(JSON.parse((result.content as { text: string }[])[0].text), {
    configured: false,
    sql: true,
  });
});

Deno.test("with the project's new API keys set beside the legacy ones, tools' client sends the publishable key", async () => {
  // What Supabase sets once a project has new keys: the legacy ones stay, and answer
  // "Legacy API keys are disabled" after the project turns them off (supabase/supabase#37648).
  const publishable = "sb_publishable_project_default_0123";
  const { app, requests } = supabaseApp({
    MCP_LOOP_REQUIRE_AUTH: "false",
    SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: publishable }),
    SUPABASE_SECRET_KEYS: JSON.stringify({ default: "sb_secret_never_sent_to_tools_0123" }),
  });
  assert.equal((await app.fetch(mcpCall("read_notes"))).status, 200);
  const token = await hs256Token(userClaims(USER_A));
  assert.equal((await app.fetch(mcpCall("read_notes", `Bearer ${token}`))).status, 200);
  assert.equal(requests.length, 2);
  for (const request of requests) {
    assert.equal(request.headers.apikey, publishable);
    assert.ok(!JSON.stringify(request.headers).includes(ANON_KEY));
    assert.ok(!JSON.stringify(request.headers).includes("sb_secret_"));
  }
  assert.equal(requests[1].headers.authorization, `Bearer ${token}`);
});
