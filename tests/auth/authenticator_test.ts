import assert from "node:assert/strict";
import { sign } from "hono/jwt";
import { createAuthenticator } from "../../shared/auth/authenticator.ts";
import { isAppError } from "../../shared/errors.ts";

const SECRET = "test-secret-with-at-least-32-characters!";
const USER = "6f1c1b0e-8a4f-4f3e-9d55-0c3a1f7b2e11";

const req = (authorization?: string) =>
  new Request("http://localhost/", { headers: authorization ? { authorization } : {} });

const now = () => Math.floor(Date.now() / 1000);

Deno.test("no credential is an anonymous caller unless authentication is required", async () => {
  assert.deepEqual(await createAuthenticator()(req()), { userId: null, owner: "anonymous" });
  await assert.rejects(
    createAuthenticator({ required: true })(req()),
    (e) => isAppError(e) && e.code === "UNAUTHORIZED",
  );
});

Deno.test("a valid Supabase user JWT (HS256) gives the user's id and claims", async () => {
  const token = await sign({ sub: USER, role: "authenticated", exp: now() + 60 }, SECRET, "HS256");
  const caller = await createAuthenticator({ jwtSecret: SECRET })(req(`Bearer ${token}`));
  assert.equal(caller.userId, USER);
  assert.equal(caller.owner, `user:${USER}`);
  assert.equal(caller.claims?.role, "authenticated");
});

Deno.test("an expired, forged or malformed JWT is refused with 401", async () => {
  const auth = createAuthenticator({ jwtSecret: SECRET });
  const expired = await sign(
    { sub: USER, role: "authenticated", exp: now() - 10 },
    SECRET,
    "HS256",
  );
  const forged = await sign(
    { sub: USER, role: "authenticated", exp: now() + 60 },
    "another-secret-of-32-characters!!",
    "HS256",
  );
  for (const token of [expired, forged, "a.b.c"]) {
    await assert.rejects(
      auth(req(`Bearer ${token}`)),
      (e) => isAppError(e) && e.status === 401,
      token,
    );
  }
  await assert.rejects(auth(req("Basic abc")), /Bearer/);
});

Deno.test("the project's anon key (a JWT without a user) is an anonymous caller", async () => {
  const anonKey = await sign({ role: "anon", exp: now() + 60 }, SECRET, "HS256");
  assert.deepEqual(await createAuthenticator({ jwtSecret: SECRET })(req(`Bearer ${anonKey}`)), {
    userId: null,
    owner: "anonymous",
  });
});

Deno.test("a JWT verified with an ES256 JWKS is accepted", async () => {
  const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const jwk = {
    ...(await crypto.subtle.exportKey("jwk", keys.publicKey)),
    kid: "k1",
    alg: "ES256",
  };
  const privateJwk = {
    ...(await crypto.subtle.exportKey("jwk", keys.privateKey)),
    kid: "k1",
    alg: "ES256",
  };
  const token = await sign(
    { sub: USER, role: "authenticated", exp: now() + 60 },
    privateJwk,
    "ES256",
  );
  const caller = await createAuthenticator({ jwks: [jwk] })(req(`Bearer ${token}`));
  assert.equal(caller.userId, USER);
});

Deno.test("API keys identify their owner; unknown bearer tokens are refused once keys are set", async () => {
  const auth = createAuthenticator({ apiKeys: new Map([["ci", "key-123"]]) });
  assert.deepEqual(await auth(req("Bearer key-123")), { userId: null, owner: "key:ci" });
  await assert.rejects(
    auth(req("Bearer key-456")),
    (e) => isAppError(e) && e.code === "UNAUTHORIZED",
  );
});
