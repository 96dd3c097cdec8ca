/**
 * The router's own rules, with handlers that echo what they were given: each
 * path under both base paths, parameters decoded, HEAD as GET without a body,
 * 404 and 405 in JSON, a handler's throw as an error answer, and the request id
 * and CORS on every answer.
 */
import assert from "node:assert/strict";
import { AppError } from "../../shared/errors.ts";
import { createRouter, type RouterDeps } from "../../shared/http/router.ts";
import { SILENT_LOGGER } from "../../shared/ports.ts";

const echo = (name: string) => (req: Request) =>
  Promise.resolve(Response.json({ name, method: req.method }));

function router(overrides: Partial<RouterDeps> = {}) {
  return createRouter({
    loop: echo("loop"),
    health: echo("health"),
    mcp: echo("mcp"),
    runs: (_req, _trace, runId, action) => Promise.resolve(Response.json({ runId, action })),
    data: (_req, _trace, action, sessionId) =>
      Promise.resolve(Response.json({ action, sessionId })),
    playground: (file) => new Response(`file:${file}`),
    corsOrigins: "*",
    logger: SILENT_LOGGER,
    ...overrides,
  });
}

const call = (path: string, init?: RequestInit) =>
  router().fetch(new Request(`http://localhost${path}`, init));

Deno.test("router: the same routes under /mcp-loop and /functions/v1/mcp-loop, with or without the slash", async () => {
  for (const base of ["/mcp-loop", "/functions/v1/mcp-loop"]) {
    for (const path of [base, `${base}/`]) {
      assert.deepEqual(await (await call(path, { method: "POST" })).json(), {
        name: "loop",
        method: "POST",
      });
    }
    assert.equal((await (await call(`${base}/health`)).json()).name, "health");
    assert.equal((await (await call(`${base}/mcp`, { method: "DELETE" })).json()).name, "mcp");
  }
});

Deno.test("router: path parameters are percent-decoded; a bad escape is kept as sent", async () => {
  assert.deepEqual(await (await call("/mcp-loop/runs/a%20b%2Fc/events")).json(), {
    runId: "a b/c",
    action: "events",
  });
  assert.deepEqual(await (await call("/mcp-loop/sessions/50%25%zz", { method: "DELETE" })).json(), {
    action: "delete_session",
    sessionId: "50%25%zz",
  });
  assert.equal(await (await call("/mcp-loop/playground/app.js")).text(), "file:app.js");
});

Deno.test("router: HEAD is answered as GET, without the body, whose stream is cancelled", async () => {
  const res = await call("/mcp-loop/health", { method: "HEAD" });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(await res.text(), "");
  let cancelled!: (reason: unknown) => void;
  const stopped = new Promise((resolve) => cancelled = resolve);
  const stream = new ReadableStream({ cancel: (reason) => cancelled(reason) });
  const events = router({ runs: () => Promise.resolve(new Response(stream)) });
  const head = await events.fetch(
    new Request("http://localhost/mcp-loop/runs/r1/events", { method: "HEAD" }),
  );
  assert.equal(head.body, null);
  await stopped;
});

Deno.test("router: an unknown path is a JSON 404, a known one with another method a 405 with Allow", async () => {
  const missing = await call("/mcp-loop/nowhere");
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error.code, "NOT_FOUND");
  const wrong = await call("/mcp-loop/data", { method: "PUT" });
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("allow"), "GET, DELETE, OPTIONS");
  assert.equal((await wrong.json()).error.code, "METHOD_NOT_ALLOWED");
  const empty = await call("/mcp-loop/runs//events");
  assert.equal(empty.status, 404, "an empty parameter matches no route");
  await empty.body?.cancel();
});

Deno.test("router: a handler's throw is its error answer; every answer has the request id and CORS", async () => {
  const failing = router({
    health: () => Promise.reject(new AppError("DB_UNAVAILABLE", "the database is away")),
  });
  const res = await failing.fetch(
    new Request("http://localhost/mcp-loop/health", { headers: { origin: "https://x.test" } }),
  );
  assert.equal(res.status, 503);
  assert.equal((await res.json()).error.code, "DB_UNAVAILABLE");
  assert.match(res.headers.get("x-request-id") ?? "", /\S/);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
});

Deno.test("router: a redirect to the playground page, and an immutable response gets its headers on a copy", async () => {
  const redirect = await call("/mcp-loop/playground/");
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.get("location"), "/mcp-loop/playground");
  const immutable = Response.redirect("http://localhost/elsewhere", 302);
  const res = await router({ health: () => Promise.resolve(immutable) }).fetch(
    new Request("http://localhost/mcp-loop/health"),
  );
  assert.equal(res.status, 302);
  assert.match(res.headers.get("x-request-id") ?? "", /\S/);
});
