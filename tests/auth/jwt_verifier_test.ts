import assert from "node:assert/strict";
import { createJwtVerifier } from "../../shared/auth/jwt_verifier.ts";
import { isAppError } from "../../shared/errors.ts";
import { recordingFetch } from "../fakes/recording_fetch.ts";
import { es256Key, es256Token, type TestKey, USER_A, userClaims } from "./test_tokens.ts";

const JWKS_URL = "https://project-ref.supabase.co/auth/v1/.well-known/jwks.json";

/** A JWKS endpoint whose key set the test changes (key rotation). */
function jwksEndpoint(keys: TestKey[]) {
  const served = { keys };
  const { fetch, requests } = recordingFetch(() =>
    Response.json({ keys: served.keys.map((key) => key.publicJwk) })
  );
  return { fetch, requests, served };
}

/** Runs `fn` with `Date.now` moved `ms` ahead (jose's key cache reads it); restores it after. */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const realNow = Date.now;
  Date.now = () => realNow() + ms;
  try {
    return await fn();
  } finally {
    Date.now = realNow;
  }
}

Deno.test("the JWKS endpoint is fetched on the first token, not before, and then cached", async () => {
  const key = await es256Key("k1");
  const endpoint = jwksEndpoint([key]);
  const verifier = createJwtVerifier({ jwksUrl: JWKS_URL, fetch: endpoint.fetch });
  assert.equal(verifier.configured, true);
  assert.equal(endpoint.requests.length, 0);
  const token = await es256Token(key, userClaims(USER_A));
  const claims = await Promise.all(Array.from({ length: 20 }, () => verifier.verify(token)));
  for (let i = 0; i < 10; i++) await verifier.verify(token);
  assert.ok(claims.every((c) => c.sub === USER_A));
  assert.equal(endpoint.requests.length, 1);
  assert.equal(endpoint.requests[0].url, JWKS_URL);
  assert.equal(endpoint.requests[0].method, "GET");
});

Deno.test("a token with an unknown key id refetches the JWKS (key rotation), at most once per cooldown", async () => {
  const oldKey = await es256Key("old");
  const newKey = await es256Key("new");
  const endpoint = jwksEndpoint([oldKey]);
  const verifier = createJwtVerifier({ jwksUrl: JWKS_URL, fetch: endpoint.fetch });
  await verifier.verify(await es256Token(oldKey, userClaims(USER_A)));
  endpoint.served.keys = [oldKey, newKey];
  const rotated = await es256Token(newKey, userClaims(USER_A));
  // Within the 30 s cooldown an unknown kid is refused without hammering the endpoint...
  await assert.rejects(
    verifier.verify(rotated),
    (e) => isAppError(e) && e.code === "TOKEN_SIGNATURE_INVALID",
  );
  assert.equal(endpoint.requests.length, 1);
  // ...after it, the unknown kid triggers one refetch and the new key is used.
  const claims = await later(31_000, () => verifier.verify(rotated));
  assert.equal(claims.sub, USER_A);
  assert.equal(endpoint.requests.length, 2);
});

Deno.test("cached keys are fetched again after ten minutes", async () => {
  const key = await es256Key("k1");
  const endpoint = jwksEndpoint([key]);
  const verifier = createJwtVerifier({ jwksUrl: JWKS_URL, fetch: endpoint.fetch });
  const token = await es256Token(key, userClaims(USER_A));
  await verifier.verify(token);
  await later(9 * 60_000, () => verifier.verify(token));
  assert.equal(endpoint.requests.length, 1);
  await later(11 * 60_000, () => verifier.verify(token));
  assert.equal(endpoint.requests.length, 2);
});

Deno.test("keys in SUPABASE_JWKS are used first; the endpoint is asked only for other key ids", async () => {
  const staticKey = await es256Key("static");
  const rotatedKey = await es256Key("rotated");
  const endpoint = jwksEndpoint([staticKey, rotatedKey]);
  const verifier = createJwtVerifier({
    jwks: [staticKey.publicJwk],
    jwksUrl: JWKS_URL,
    fetch: endpoint.fetch,
  });
  await verifier.verify(await es256Token(staticKey, userClaims(USER_A)));
  assert.equal(endpoint.requests.length, 0);
  await verifier.verify(await es256Token(rotatedKey, userClaims(USER_A)));
  assert.equal(endpoint.requests.length, 1);
});

Deno.test("a JWKS endpoint that is down is a server fault: 503 AUTH_KEYS_UNAVAILABLE, not 401", async () => {
  const key = await es256Key("k1");
  const token = await es256Token(key, userClaims(USER_A));
  const failures = [
    () => Promise.reject(new TypeError("error sending request: connection refused")),
    () => Promise.resolve(new Response("upstream error", { status: 500 })),
    () => Promise.resolve(new Response("<html>not json</html>", { status: 200 })),
  ];
  for (const failure of failures) {
    const verifier = createJwtVerifier({ jwksUrl: JWKS_URL, fetch: failure as typeof fetch });
    await assert.rejects(verifier.verify(token), (e) => {
      assert.ok(isAppError(e));
      assert.equal(e.code, "AUTH_KEYS_UNAVAILABLE");
      assert.equal(e.status, 503);
      assert.match(e.message, /jwks\.json.*try again/);
      return true;
    });
  }
});
