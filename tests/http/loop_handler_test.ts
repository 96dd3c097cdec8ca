import assert from "node:assert/strict";
import { post, testApp, validBody } from "../support/test_app.ts";

Deno.test("POST /mcp-loop runs the loop and returns the seed's response", async () => {
  const { app } = testApp();
  const body = validBody("hello there");
  const res = await app.fetch(post(body));
  assert.equal(res.status, 200);
  assert.ok(res.headers.get("x-request-id"));
  const json = await res.json();
  assert.equal(json.success, true);
  assert.equal(json.data.context.sessionId, body.sessionId);
  assert.deepEqual(json.data.plan.map((step: { tool: string }) => step.tool), ["finalize_summary"]);
  assert.equal(json.data.intermediateResults[0].tool, "finalize_summary");
  assert.match(json.data.summaryMessage, /^Hello! /);
  assert.deepEqual(json.data.context.embeddedMessage, { model: "hashing-v1", dimensions: 1536 });
});

Deno.test("?includeEmbedding=true returns the raw vector", async () => {
  const { app } = testApp();
  const res = await app.fetch(post(validBody(), { path: "/mcp-loop?includeEmbedding=true" }));
  const json = await res.json();
  assert.equal(json.data.context.embeddedMessage.length, 1536);
});

Deno.test("the same paths answer under /functions/v1/mcp-loop", async () => {
  const { app } = testApp();
  const res = await app.fetch(post(validBody(), { path: "/functions/v1/mcp-loop" }));
  assert.equal(res.status, 200);
  const health = await app.fetch(new Request("http://localhost/functions/v1/mcp-loop/health"));
  assert.equal(health.status, 200);
});

Deno.test("OPTIONS answers the CORS preflight", async () => {
  const { app } = testApp();
  const res = await app.fetch(
    new Request("http://localhost/mcp-loop", {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    }),
  );
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("access-control-allow-origin"), "http://localhost:5173");
  assert.match(res.headers.get("access-control-allow-methods") ?? "", /POST/);
  assert.match(res.headers.get("access-control-allow-headers") ?? "", /authorization/);
});

Deno.test("configured CORS origins are echoed only for those origins", async () => {
  const { app } = testApp({}, { MCP_LOOP_CORS_ORIGINS: "https://app.example" });
  const allowed = await app.fetch(
    post(validBody(), { headers: { origin: "https://app.example" } }),
  );
  assert.equal(allowed.headers.get("access-control-allow-origin"), "https://app.example");
  const other = await app.fetch(post(validBody(), { headers: { origin: "https://evil.example" } }));
  assert.equal(other.headers.get("access-control-allow-origin"), null);
});

Deno.test("GET /mcp-loop/health reports the database and the setup", async () => {
  const { app } = testApp();
  const res = await app.fetch(new Request("http://localhost/mcp-loop/health"));
  assert.equal(res.status, 200);
  const json = await res.json();
  assert.equal(json.ok, true);
  assert.equal(json.checks.database.ok, true);
  assert.equal(json.embedder, "hashing-v1");
  assert.deepEqual(json.tools, [
    "finalize_summary",
    "initialize_refinement_loop",
    "decide_loop_next_action",
    "get_loop_status",
    "list_active_loops",
    "remember",
    "forget",
    "forget_session",
  ]);
});

Deno.test("health is 503 with the reason when the database is down", async () => {
  const { app, sql } = testApp();
  sql.failWith = new Error("connection refused");
  const res = await app.fetch(new Request("http://localhost/mcp-loop/health"));
  assert.equal(res.status, 503);
  const json = await res.json();
  assert.equal(json.ok, false);
  assert.equal(json.checks.database.error, "the database is not reachable; see the server log");
  assert.doesNotMatch(JSON.stringify(json), /connection refused/);
});

Deno.test("wrong methods get 405 with Allow, unknown paths 404, both as JSON errors", async () => {
  const { app } = testApp();
  const get = await app.fetch(new Request("http://localhost/mcp-loop"));
  assert.equal(get.status, 405);
  assert.equal(get.headers.get("allow"), "POST, OPTIONS");
  assert.equal((await get.json()).error.code, "METHOD_NOT_ALLOWED");
  const missing = await app.fetch(new Request("http://localhost/elsewhere"));
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error.code, "NOT_FOUND");
});

Deno.test("Accept: text/event-stream streams progress events and then the result", async () => {
  const { app } = testApp();
  const res = await app.fetch(post(validBody("hi"), { headers: { accept: "text/event-stream" } }));
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
  const text = await res.text();
  const events = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
  // A persisted run first names itself (where to follow it after a disconnect).
  assert.deepEqual(events, [
    "run",
    "context",
    "round_start",
    "plan",
    "step_start",
    "step_end",
    "summary",
    "result",
  ]);
  const result = JSON.parse(text.trim().split("\n").at(-1)!.slice("data: ".length));
  assert.equal(result.success, true);
  // Every progress event carries its run event number, for Last-Event-ID.
  const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  assert.deepEqual(ids, [1, 2, 3, 4, 5, 6, 7]);
  assert.equal(result.data.runId, JSON.parse(text.split("\n")[2].slice("data: ".length)).runId);
});

Deno.test("a loop failure during a stream ends with an error event", async () => {
  const { app, store } = testApp();
  store.failNextSave = new Error("disk full");
  const res = await app.fetch(post(validBody("hi"), { headers: { accept: "text/event-stream" } }));
  const text = await res.text();
  assert.match(text, /event: error\ndata: \{"success":false,"error":\{"code":"DB_UNAVAILABLE"/);
});

Deno.test("the request is stored: a second request sees the first in recentMessages", async () => {
  const { app } = testApp();
  const first = validBody("first message about invoices");
  await app.fetch(post(first));
  const res = await app.fetch(post({ ...first, messages: [{ role: "user", content: "second" }] }));
  const json = await res.json();
  assert.deepEqual(
    json.data.context.recentMessages.map((m: { role: string }) => m.role),
    ["user", "assistant"],
  );
  assert.equal(json.data.context.recentMessages[0].content, "first message about invoices");
});
