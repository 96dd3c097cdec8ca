/**
 * Verified identity end to end: the real app on the shared PGlite, with the
 * legacy HS256 secret configured (so authentication is required by default).
 * Two signed-in users on the same session id never see each other's data.
 */
import assert from "node:assert/strict";
import { type App, createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { sharedPglite } from "../support/pglite.ts";
import { post, validBody } from "../support/test_app.ts";
import { hs256Token, SECRET, USER_A, USER_B, userClaims } from "../auth/test_tokens.ts";

async function securedApp(env: Record<string, string> = { SUPABASE_JWT_SECRET: SECRET }) {
  return createApp(loadConfig({ MCP_LOOP_LOG_LEVEL: "silent", ...env }), {
    sql: await sharedPglite(),
    logger: new RecordingLogger(),
  });
}

const tokens = async () => ({
  a: `Bearer ${await hs256Token(userClaims(USER_A))}`,
  b: `Bearer ${await hs256Token(userClaims(USER_B))}`,
});

/** `POST /mcp-loop` as `authorization`; the response's data. */
async function say(app: App, authorization: string, content: string, sessionId: string) {
  const res = await app.fetch(post(validBody(content, sessionId), { headers: { authorization } }));
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.data;
}

/** A JSON-RPC `tools/call` on `/mcp-loop/mcp` as `authorization`; the call's result. */
async function callTool(
  app: App,
  authorization: string,
  name: string,
  args: Record<string, unknown> = {},
) {
  const res = await app.fetch(
    new Request("http://localhost/mcp-loop/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args },
      }),
    }),
  );
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.result as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent?: { id?: string; loops?: { id: string }[] };
  };
}

Deno.test("two users on the same session id never see each other's messages", async () => {
  const app = await securedApp();
  const { a, b } = await tokens();
  const session = `rls-${crypto.randomUUID()}`;
  try {
    await say(app, a, "The vault combination for project kumquat is 7731-ALPHA", session);
    const fromB = await say(app, b, "What is the vault combination for project kumquat?", session);
    assert.doesNotMatch(JSON.stringify(fromB), /7731-ALPHA/);
    assert.ok(
      [...fromB.context.recentMessages, ...fromB.semanticMatches].every(
        (m: { content: string }) => !m.content.includes("7731-ALPHA"),
      ),
    );
    const fromA = await say(app, a, "Remind me of the vault combination for kumquat", session);
    assert.ok(
      fromA.context.recentMessages.some((m: { content: string }) =>
        m.content === "The vault combination for project kumquat is 7731-ALPHA"
      ),
    );
    assert.doesNotMatch(JSON.stringify(fromA), /What is the vault combination/);
    // The rows carry the verified user ids, so RLS has something to check.
    const rows = await (await sharedPglite()).query<{ user_id: string; owner: string }>(
      "select distinct user_id::text, owner from public.chat_messages where session_id = $1",
      [session],
    );
    assert.deepEqual(
      rows.map((r) => [r.user_id, r.owner]).sort(),
      [[USER_A, `user:${USER_A}`], [USER_B, `user:${USER_B}`]].sort(),
    );
  } finally {
    await app.close();
  }
});

Deno.test("a user's refinement loops are invisible to another user over MCP", async () => {
  const app = await securedApp();
  const { a, b } = await tokens();
  try {
    const created = await callTool(app, a, "initialize_refinement_loop", { loop_type: "spec" });
    assert.equal(created.isError, undefined, created.content[0]?.text);
    const loopId = created.structuredContent?.id;
    assert.ok(loopId);
    const status = await callTool(app, b, "get_loop_status", { loop_id: loopId });
    assert.equal(status.isError, true);
    assert.match(status.content[0].text, new RegExp(`"${loopId}" does not exist`));
    const listedForB = await callTool(app, b, "list_active_loops");
    assert.ok(!listedForB.structuredContent?.loops?.some((loop) => loop.id === loopId));
    const listedForA = await callTool(app, a, "list_active_loops");
    assert.ok(listedForA.structuredContent?.loops?.some((loop) => loop.id === loopId));
  } finally {
    await app.close();
  }
});

Deno.test("with Supabase settings present, a request without a token gets 401 AUTH_REQUIRED on both endpoints", async () => {
  const app = await securedApp({ SUPABASE_URL: "https://project-ref.supabase.co" });
  try {
    const loop = await app.fetch(post(validBody()));
    assert.equal(loop.status, 401);
    assert.equal(loop.headers.get("www-authenticate"), 'Bearer realm="mcp-loop"');
    assert.equal((await loop.json()).error.code, "AUTH_REQUIRED");

    const mcp = await app.fetch(
      new Request("http://localhost/mcp-loop/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    assert.equal(mcp.status, 401);
    // The MCP endpoint also says where to sign in (RFC 9728): Supabase Auth of this project.
    assert.equal(
      mcp.headers.get("www-authenticate"),
      'Bearer realm="mcp-loop", resource_metadata="https://project-ref.supabase.co/functions/v1/mcp-loop/.well-known/oauth-protected-resource"',
    );
    const { error } = await mcp.json();
    assert.deepEqual([error.code, error.data.code], [-32001, "AUTH_REQUIRED"]);
  } finally {
    await app.close();
  }
});

Deno.test("an upper-case sub is the same user as its lower-case spelling: it reads and writes that user's rows", async () => {
  const app = await securedApp();
  const upper = `Bearer ${await hs256Token(userClaims(USER_A.toUpperCase()))}`;
  const { a } = await tokens();
  const sessionId = `upper-${crypto.randomUUID()}`;
  try {
    await say(app, a, "the lower-case spelling wrote this", sessionId);
    // Writes under row level security: a turn and a refinement loop.
    const data = await say(app, upper, "and the upper-case one this", sessionId);
    assert.deepEqual(
      data.context.recentMessages.map((m: { content: string }) => m.content).slice(0, 1),
      ["the lower-case spelling wrote this"],
    );
    const created = await callTool(app, upper, "initialize_refinement_loop", { loop_type: "plan" });
    assert.equal(created.isError, undefined, created.content[0]?.text);
    const seen = await callTool(app, a, "get_loop_status", {
      loop_id: created.structuredContent?.id,
    });
    assert.equal(seen.isError, undefined, seen.content[0]?.text);
  } finally {
    await app.close();
  }
});
