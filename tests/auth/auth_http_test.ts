/**
 * Authentication through the app's HTTP surface: the codes and the
 * `WWW-Authenticate` challenge on both endpoints, and the JWKS endpoint served
 * on loopback (the real fetch, no network beyond 127.0.0.1).
 */
import assert from "node:assert/strict";
import type { App } from "../../shared/app/app.ts";
import { post, testApp, validBody } from "../support/test_app.ts";
import {
  es256Key,
  es256Token,
  hs256Token,
  secondsAgo,
  SECRET,
  type TestKey,
  unsignedToken,
  USER_A,
  userClaims,
} from "./test_tokens.ts";

/** A JWKS endpoint on loopback that counts its requests; `status` makes it fail. */
function serveJwks(keys: TestKey[]) {
  const state = { requests: 0, status: 200 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    state.requests++;
    return state.status === 200
      ? Response.json({ keys: keys.map((key) => key.publicJwk) })
      : new Response("unavailable", { status: state.status });
  });
  const url = `http://127.0.0.1:${
    (server.addr as Deno.NetAddr).port
  }/auth/v1/.well-known/jwks.json`;
  return { url, state, close: () => server.shutdown() };
}

/** The loop endpoint's and the MCP endpoint's answers to one credential. */
async function bothEndpoints(app: App, authorization?: string) {
  const headers: Record<string, string> = authorization ? { authorization } : {};
  const loop = await app.fetch(post(validBody(), { headers }));
  const mcp = await app.fetch(
    post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, {
      path: "/mcp-loop/mcp",
      headers: { accept: "application/json, text/event-stream", ...headers },
    }),
  );
  const loopBody = await loop.json();
  const mcpBody = await mcp.json();
  return {
    loop: {
      status: loop.status,
      challenge: loop.headers.get("www-authenticate"),
      code: loopBody.error?.code,
    },
    mcp: {
      status: mcp.status,
      challenge: mcp.headers.get("www-authenticate"),
      code: mcpBody.error?.data?.code,
    },
  };
}

Deno.test("each refused token gets 401, its code and an invalid_token challenge on both endpoints", async () => {
  const { app } = testApp({}, { SUPABASE_JWT_SECRET: SECRET });
  const cases: [string, string][] = [
    [await hs256Token(userClaims(USER_A), { expiresAt: secondsAgo(60) }), "TOKEN_EXPIRED"],
    [
      await hs256Token(userClaims(USER_A), { secret: "another-secret-of-32-characters!!" }),
      "TOKEN_SIGNATURE_INVALID",
    ],
    [await hs256Token(userClaims(USER_A, { aud: "elsewhere" })), "TOKEN_AUDIENCE_INVALID"],
    [unsignedToken(userClaims(USER_A)), "TOKEN_ALGORITHM_REFUSED"],
    ["a.b.c", "TOKEN_MALFORMED"],
  ];
  for (const [token, code] of cases) {
    const { loop, mcp } = await bothEndpoints(app, `Bearer ${token}`);
    for (const answer of [loop, mcp]) {
      assert.equal(answer.status, 401, code);
      assert.equal(answer.code, code);
      assert.match(answer.challenge ?? "", /^Bearer realm="mcp-loop", error="invalid_token"/);
    }
  }
  const missing = await bothEndpoints(app);
  assert.deepEqual(missing.loop, {
    status: 401,
    challenge: 'Bearer realm="mcp-loop"',
    code: "AUTH_REQUIRED",
  });
  assert.deepEqual(missing.mcp, missing.loop);
  await app.close();
});

Deno.test("user tokens are verified with keys fetched from the JWKS endpoint, once", async () => {
  const key = await es256Key("k1");
  const jwks = serveJwks([key]);
  const { app } = testApp({}, { MCP_LOOP_JWKS_URL: jwks.url, MCP_LOOP_REQUIRE_AUTH: "true" });
  try {
    assert.equal(jwks.state.requests, 0);
    const authorization = `Bearer ${await es256Token(key, userClaims(USER_A))}`;
    for (let i = 0; i < 3; i++) {
      const { loop, mcp } = await bothEndpoints(app, authorization);
      assert.equal(loop.status, 200);
      assert.equal(mcp.status, 200);
    }
    assert.equal(jwks.state.requests, 1);
  } finally {
    await app.close();
    await jwks.close();
  }
});

Deno.test("a JWKS endpoint that fails gives 503 AUTH_KEYS_UNAVAILABLE without a challenge", async () => {
  const key = await es256Key("k1");
  const jwks = serveJwks([key]);
  jwks.state.status = 503;
  const { app, logger } = testApp({}, { MCP_LOOP_JWKS_URL: jwks.url });
  try {
    const { loop, mcp } = await bothEndpoints(
      app,
      `Bearer ${await es256Token(key, userClaims(USER_A))}`,
    );
    for (const answer of [loop, mcp]) {
      assert.deepEqual(answer, { status: 503, challenge: null, code: "AUTH_KEYS_UNAVAILABLE" });
    }
    assert.ok(
      logger.entries.some((e) => e.level === "error" && e.fields?.code === "AUTH_KEYS_UNAVAILABLE"),
    );
  } finally {
    await app.close();
    await jwks.close();
  }
});
