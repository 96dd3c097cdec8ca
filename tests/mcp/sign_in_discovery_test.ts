/** Sign-in discovery for MCP clients: the 401 challenge and the protected-resource metadata (RFC 9728). */
import assert from "node:assert/strict";
import { freePort, initializedDataDir, SERVE_ARGS, spawnProcess } from "../support/process.ts";
import { testApp } from "../support/test_app.ts";

const SUPABASE = { SUPABASE_URL: "https://abc.supabase.co", SUPABASE_JWT_SECRET: "x".repeat(40) };

const mcpCall = () =>
  new Request("http://localhost:8000/mcp-loop/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });

Deno.test("a 401 from the MCP endpoint points at the metadata, which names Supabase Auth", async () => {
  const { app } = testApp({}, SUPABASE);
  const refused = await app.fetch(mcpCall());
  assert.equal(refused.status, 401);
  const challenge = refused.headers.get("www-authenticate")!;
  const url = /resource_metadata="([^"]+)"/.exec(challenge)![1];
  assert.equal(
    url,
    "https://abc.supabase.co/functions/v1/mcp-loop/.well-known/oauth-protected-resource",
  );

  // The function serves that document under its own path.
  const res = await app.fetch(
    new Request(url.replace("https://abc.supabase.co/functions/v1", "http://localhost:8000")),
  );
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), {
    resource: "https://abc.supabase.co/functions/v1/mcp-loop/mcp",
    authorization_servers: ["https://abc.supabase.co/auth/v1"],
    bearer_methods_supported: ["header"],
    resource_name: "mcp-loop",
  });
  // And where RFC 9728 puts it for a resource on a path.
  const wellKnown = await app.fetch(
    new Request(
      "http://localhost:8000/.well-known/oauth-protected-resource/functions/v1/mcp-loop/mcp",
    ),
  );
  assert.equal(wellKnown.status, 200);
});

Deno.test("settings override the public URL, the authorization servers and the scopes", async () => {
  const { app } = testApp({}, {
    ...SUPABASE,
    MCP_LOOP_PUBLIC_URL: "https://api.example.com/mcp-loop/",
    MCP_LOOP_AUTHORIZATION_SERVERS: "https://auth.example.com, https://login.example.org/",
  }, { oauth: { scopes: ["openid", "email"] } });
  const refused = await app.fetch(mcpCall());
  assert.match(
    refused.headers.get("www-authenticate")!,
    /resource_metadata="https:\/\/api\.example\.com\/mcp-loop\/\.well-known\/oauth-protected-resource"/,
  );
  const metadata = await (await app.fetch(
    new Request("http://localhost:8000/mcp-loop/.well-known/oauth-protected-resource"),
  )).json();
  assert.equal(metadata.resource, "https://api.example.com/mcp-loop/mcp");
  assert.deepEqual(metadata.authorization_servers, [
    "https://auth.example.com",
    "https://login.example.org",
  ]);
  assert.deepEqual(metadata.scopes_supported, ["openid", "email"]);
});

Deno.test("without required authentication there is no sign-in discovery", async () => {
  const { app } = testApp({}, { ...SUPABASE, MCP_LOOP_REQUIRE_AUTH: "false" });
  const res = await app.fetch(
    new Request("http://localhost/mcp-loop/.well-known/oauth-protected-resource"),
  );
  assert.equal(res.status, 404);
});

/** Supabase's local stack: authentication is required, and no public URL is configured. */
const LOCAL_STACK = {
  SUPABASE_URL: "http://127.0.0.1:54321",
  SUPABASE_JWT_SECRET: "x".repeat(40),
};

Deno.test("without a public URL, a request from the local server's Unix socket gets an http URL, never null", async () => {
  const { app } = testApp({}, LOCAL_STACK);
  // What Deno makes of a request served on a Unix socket (`deno task start` serves there,
  // behind its connection guard): its origin is the string "null". MCP clients send no Origin.
  const refused = await app.fetch(
    new Request("http+unix://127.0.0.1:8000/mcp-loop/mcp", {
      method: "POST",
      headers: {
        host: "127.0.0.1:8000",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    }),
  );
  assert.equal(refused.status, 401);
  assert.match(
    refused.headers.get("www-authenticate")!,
    /resource_metadata="http:\/\/127\.0\.0\.1:8000\/mcp-loop\/\.well-known\/oauth-protected-resource"/,
  );
  const metadata = await (await app.fetch(
    new Request("http+unix://127.0.0.1:8000/mcp-loop/.well-known/oauth-protected-resource", {
      headers: { host: "127.0.0.1:8000" },
    }),
  )).json();
  assert.equal(metadata.resource, "http://127.0.0.1:8000/mcp-loop/mcp");
  assert.deepEqual(metadata.authorization_servers, ["http://127.0.0.1:54321/auth/v1"]);
});

Deno.test("deno task start with authentication on: a 401 without Origin points at metadata an MCP client can fetch", async () => {
  const port = freePort();
  // `deno task start`'s command, run directly so the server is this process's own child.
  const server = spawnProcess([...SERVE_ARGS], {
    env: { PORT: String(port), MCP_LOOP_DATA_DIR: await initializedDataDir(), ...LOCAL_STACK },
  });
  try {
    await server.waitForLine((line) => line.includes("/mcp-loop/mcp"));
    const refused = await fetch(`http://127.0.0.1:${port}/mcp-loop/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    await refused.body?.cancel();
    assert.equal(refused.status, 401);
    const url = /resource_metadata="([^"]+)"/.exec(refused.headers.get("www-authenticate")!)![1];
    assert.equal(url, `http://127.0.0.1:${port}/mcp-loop/.well-known/oauth-protected-resource`);
    const metadata = await (await fetch(url)).json();
    assert.equal(metadata.resource, `http://127.0.0.1:${port}/mcp-loop/mcp`);
    assert.deepEqual(metadata.authorization_servers, ["http://127.0.0.1:54321/auth/v1"]);
  } finally {
    await server.kill();
  }
});
