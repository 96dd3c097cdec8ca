import assert from "node:assert/strict";
import { loadConfig } from "../../shared/config/config.ts";
import { post, testApp, validBody } from "../support/test_app.ts";

/** The preflight supabase-js's `functions.invoke` triggers from a browser. */
function preflight(origin: string, path = "/mcp-loop"): Request {
  return new Request(`http://localhost${path}`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, x-client-info, apikey, content-type",
    },
  });
}

const SUPABASE = { SUPABASE_URL: "https://abcd.supabase.co" };

Deno.test("locally pages on this machine may call, and the preflight allows the headers supabase-js sends", async () => {
  const { app } = testApp();
  for (const path of ["/mcp-loop", "/functions/v1/mcp-loop", "/mcp-loop/mcp"]) {
    const res = await app.fetch(preflight("http://localhost:3000", path));
    assert.equal(res.status, 204, path);
    assert.equal(res.headers.get("access-control-allow-origin"), "http://localhost:3000");
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").split(",")
      .map((h) => h.trim());
    for (const header of ["authorization", "x-client-info", "apikey", "content-type"]) {
      assert.ok(allowed.includes(header), `${header} on ${path}`);
    }
    assert.match(res.headers.get("access-control-allow-methods") ?? "", /POST/);
    assert.match(res.headers.get("access-control-expose-headers") ?? "", /x-request-id/);
  }
});

Deno.test("with Supabase settings and no MCP_LOOP_CORS_ORIGINS no origin is allowed", async () => {
  assert.deepEqual(loadConfig(SUPABASE).http.corsOrigins, []);
  const { app } = testApp({}, SUPABASE);
  const res = await app.fetch(preflight("https://app.example"));
  assert.equal(res.headers.get("access-control-allow-origin"), null);
});

Deno.test("configured origins are allowed, others are not, and the preflight needs no credential", async () => {
  const { app } = testApp({}, {
    ...SUPABASE,
    MCP_LOOP_CORS_ORIGINS: "https://app.example, http://localhost:3000/",
  });
  const allowed = await app.fetch(preflight("https://app.example"));
  assert.equal(allowed.status, 204, "a preflight is answered even though auth is required");
  assert.equal(allowed.headers.get("access-control-allow-origin"), "https://app.example");
  assert.match(allowed.headers.get("vary") ?? "", /origin/i);
  const local = await app.fetch(preflight("http://localhost:3000"));
  assert.equal(local.headers.get("access-control-allow-origin"), "http://localhost:3000");
  const other = await app.fetch(preflight("https://evil.example"));
  assert.equal(other.headers.get("access-control-allow-origin"), null);
});

Deno.test("an MCP_LOOP_CORS_ORIGINS entry that is not an origin stops start-up", () => {
  assert.throws(
    () => loadConfig({ MCP_LOOP_CORS_ORIGINS: "https://app.example/path" }),
    /MCP_LOOP_CORS_ORIGINS: "https:\/\/app.example\/path" is not an origin/,
  );
  assert.equal(loadConfig({ MCP_LOOP_CORS_ORIGINS: "*" }).http.corsOrigins, "*");
});

Deno.test("CORS headers are on real responses and errors too, and a CORS origin may use the MCP endpoint", async () => {
  const { app } = testApp({}, { ...SUPABASE, MCP_LOOP_CORS_ORIGINS: "https://app.example" });
  const origin = { origin: "https://app.example" };
  const refused = await app.fetch(post(validBody(), { headers: origin }));
  assert.equal(refused.status, 401, "no credential: auth is required with Supabase settings");
  assert.equal(refused.headers.get("access-control-allow-origin"), "https://app.example");
  assert.match(refused.headers.get("access-control-expose-headers") ?? "", /www-authenticate/);
  const mcp = await app.fetch(post({ jsonrpc: "2.0", id: 1, method: "ping" }, {
    path: "/mcp-loop/mcp",
    headers: { ...origin, host: "abcd.supabase.co", accept: "application/json, text/event-stream" },
  }));
  assert.equal(mcp.status, 401, "past the origin check (403), stopped by authentication");
  assert.equal(mcp.headers.get("access-control-allow-origin"), "https://app.example");
});

Deno.test("the local Supabase stack (supabase functions serve) allows pages on this machine", () => {
  assert.equal(loadConfig({ SUPABASE_URL: "http://kong:8000" }).http.corsOrigins, "loopback");
  assert.equal(loadConfig({ SUPABASE_URL: "http://127.0.0.1:54321" }).http.corsOrigins, "loopback");
});

Deno.test("locally, a page elsewhere cannot read the conversation: no CORS grant, and the loop refuses its Origin and a foreign Host", async () => {
  const { app } = testApp();
  const evil = await app.fetch(preflight("https://evil.example"));
  assert.equal(evil.headers.get("access-control-allow-origin"), null);
  const fromEvil = await app.fetch(
    post(validBody(), { headers: { origin: "https://evil.example" } }),
  );
  assert.equal(fromEvil.status, 403);
  assert.match(
    (await fromEvil.json()).error.message,
    /Origin "https:\/\/evil.example" is not allowed/,
  );
  assert.equal(fromEvil.headers.get("access-control-allow-origin"), null);
  const rebound = await app.fetch(post(validBody(), { headers: { host: "evil.example" } }));
  assert.equal(rebound.status, 403);
  assert.match((await rebound.json()).error.message, /Host "evil.example" is not allowed/);
  const local = await app.fetch(
    post(validBody(), { headers: { origin: "http://localhost:5173" } }),
  );
  assert.equal(local.status, 200);
  assert.equal(local.headers.get("access-control-allow-origin"), "http://localhost:5173");
});
