/**
 * Forgetting and export over HTTP, on the real app and the shared PGlite, with
 * two signed-in users on the same session id: `DELETE /mcp-loop/sessions/{id}`,
 * `GET /mcp-loop/data` and `DELETE /mcp-loop/data?confirm=true` reach only the
 * caller's rows, behind the same authentication and Origin checks as the loop;
 * the `forget_session` tool waits for approval, then deletes the conversation.
 */
import assert from "node:assert/strict";
import { type App, createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import { hs256Token, SECRET, userClaims } from "../auth/test_tokens.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { sharedPglite } from "../support/pglite.ts";
import { post, validBody } from "../support/test_app.ts";

async function setUp() {
  const app = createApp(loadConfig({ MCP_LOOP_LOG_LEVEL: "silent", SUPABASE_JWT_SECRET: SECRET }), {
    sql: await sharedPglite(),
    logger: new RecordingLogger(),
  });
  const token = async () => `Bearer ${await hs256Token(userClaims(crypto.randomUUID()))}`;
  return { app, a: await token(), b: await token() };
}

async function say(app: App, authorization: string, content: string, sessionId: string) {
  const res = await app.fetch(post(validBody(content, sessionId), { headers: { authorization } }));
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.data;
}

function call(app: App, method: string, path: string, headers: Record<string, string> = {}) {
  return app.fetch(new Request(`http://localhost/mcp-loop${path}`, { method, headers }));
}

async function exported(app: App, authorization: string) {
  const res = await call(app, "GET", "/data", { authorization });
  assert.equal(res.status, 200);
  return (await res.json()).data;
}

Deno.test("DELETE /sessions/{id} deletes the caller's session only; another caller's is 404", async () => {
  const { app, a, b } = await setUp();
  const session = `a b/${crypto.randomUUID()}`;
  const path = `/sessions/${encodeURIComponent(session)}`;
  try {
    await say(app, a, "My badge number is 40021", session);
    await say(app, b, "Bob's words, same session id", session);
    const res = await call(app, "DELETE", path, { authorization: a });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.data.sessionId, session);
    assert.deepEqual([body.data.deleted.messages, body.data.deleted.runs], [2, 1]);
    assert.equal(res.headers.get("cache-control"), "no-store");

    const again = await call(app, "DELETE", path, { authorization: a });
    assert.equal(again.status, 404);
    assert.equal((await again.json()).error.code, "NOT_FOUND");
    const fromA = await say(app, a, "what is my badge number?", session);
    assert.doesNotMatch(JSON.stringify(fromA), /40021/);
    const fromB = await exported(app, b);
    assert.deepEqual(fromB.messages.map((m: { content: string }) => m.content).slice(0, 1), [
      "Bob's words, same session id",
    ]);
    assert.equal(
      (await exported(app, a)).toolCalls.every((c: { input: unknown }) =>
        c.input === null || !JSON.stringify(c.input).includes("40021")
      ),
      true,
    );
  } finally {
    await app.close();
  }
});

Deno.test("GET /data exports the caller's messages, memory, runs and tool calls, nobody else's", async () => {
  const { app, a, b } = await setUp();
  const session = `export-${crypto.randomUUID()}`;
  try {
    await say(app, a, "Remember that I live in Lisbon", session);
    await say(app, b, "Remember that I live in Oslo", session);
    const res = await call(app, "GET", "/data", { authorization: a });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-disposition") ?? "", /attachment; filename=/);
    const { data } = await res.json();
    assert.deepEqual(data.workingMemory, { facts: ["I live in Lisbon"] });
    assert.deepEqual(data.messages.map((m: { role: string }) => m.role), ["user", "assistant"]);
    assert.equal(data.runs.length, 1);
    assert.equal(data.runs[0].request.messages[0].content, "Remember that I live in Lisbon");
    assert.deepEqual(data.toolCalls.map((c: { tool: string }) => c.tool), [
      "remember",
      "finalize_summary",
    ]);
    assert.doesNotMatch(JSON.stringify(data), /Oslo/);
  } finally {
    await app.close();
  }
});

Deno.test("DELETE /data needs confirm=true, then deletes everything of the caller only", async () => {
  const { app, a, b } = await setUp();
  const session = `all-${crypto.randomUUID()}`;
  try {
    await say(app, a, "Remember that my dog is called Rex", session);
    await say(app, b, "Remember that my cat is called Tom", session);
    const refused = await call(app, "DELETE", "/data", { authorization: a });
    assert.equal(refused.status, 400);
    assert.match((await refused.json()).error.message, /confirm=true/);
    const res = await call(app, "DELETE", "/data?confirm=true", { authorization: a });
    const { data } = await res.json();
    assert.equal(res.status, 200);
    assert.deepEqual([data.deleted.messages, data.deleted.runs, data.deleted.memory], [2, 1, 1]);
    const after = await exported(app, a);
    assert.deepEqual([after.messages, after.runs, after.workingMemory], [[], [], null]);
    assert.ok(after.toolCalls.every((c: { input: unknown }) => c.input === null));
    assert.deepEqual((await exported(app, b)).workingMemory, { facts: ["my cat is called Tom"] });
  } finally {
    await app.close();
  }
});

Deno.test("the data routes need a credential where the loop does, and refuse other origins", async () => {
  const { app, a } = await setUp();
  try {
    for (
      const [method, path] of [["DELETE", "/sessions/x"], ["GET", "/data"], ["DELETE", "/data"]]
    ) {
      assert.equal((await call(app, method, path)).status, 401, `${method} ${path}`);
      const foreign = await call(app, method, path, {
        authorization: a,
        origin: "https://evil.example",
      });
      assert.equal(foreign.status, 403, `${method} ${path} from another origin`);
    }
    assert.equal((await call(app, "PUT", "/data", { authorization: a })).status, 405);
  } finally {
    await app.close();
  }
});

Deno.test("forget_session waits for approval, then deletes the conversation but the turn that asked", async () => {
  const { app, a } = await setUp();
  const session = `forget-${crypto.randomUUID()}`;
  try {
    await say(app, a, "My locker code is 5512", session);
    const asked = await say(app, a, "Forget this conversation", session);
    assert.equal(asked.stopReason, "approval_required");
    const [pending] = asked.pendingApprovals;
    assert.equal(pending.tool, "forget_session");
    const res = await app.fetch(
      post({ approvals: [{ id: pending.id, approved: true }] }, {
        path: `/mcp-loop/runs/${asked.runId}/approvals`,
        headers: { authorization: a },
      }),
    );
    const { data } = await res.json();
    assert.equal(res.status, 200, JSON.stringify(data));
    const step = data.intermediateResults.find((r: { tool: string }) =>
      r.tool === "forget_session"
    );
    assert.deepEqual(
      [step.success, step.output.deleted.messages, step.output.deleted.runs],
      [true, 2, 1],
    );
    const left = (await exported(app, a)).messages.map((m: { content: string }) => m.content);
    assert.equal(left[0], "Forget this conversation");
    assert.doesNotMatch(JSON.stringify(left), /5512/);
  } finally {
    await app.close();
  }
});
