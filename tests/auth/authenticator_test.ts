import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { createAuthenticator } from "../../shared/auth/authenticator.ts";
import { type ErrorCode, isAppError } from "../../shared/errors.ts";
import {
  es256Key,
  es256Token,
  hs256Token,
  secondsAgo,
  SECRET,
  unsignedToken,
  USER_A,
  userClaims,
} from "./test_tokens.ts";

const req = (authorization?: string) =>
  new Request("http://localhost/", { headers: authorization ? { authorization } : {} });

const bearer = (token: string) => req(`Bearer ${token}`);

/** Asserts that `promise` rejects with `code` and HTTP 401. */
async function refused(promise: Promise<unknown>, code: ErrorCode, message?: RegExp) {
  await assert.rejects(promise, (error) => {
    assert.ok(isAppError(error), String(error));
    assert.equal(error.code, code, error.message);
    assert.equal(error.status, 401);
    if (message) assert.match(error.message, message);
    return true;
  });
}

Deno.test("no credential is an anonymous caller unless authentication is required", async () => {
  assert.deepEqual(await createAuthenticator()(req()), { userId: null, owner: "anonymous" });
  await refused(createAuthenticator({ required: true })(req()), "AUTH_REQUIRED", /Bearer/);
});

Deno.test("a valid user token signed with the legacy HS256 secret gives the user's id and claims", async () => {
  const token = await hs256Token(userClaims(USER_A));
  const caller = await createAuthenticator({ jwtSecret: SECRET })(bearer(token));
  assert.equal(caller.userId, USER_A);
  assert.equal(caller.owner, `user:${USER_A}`);
  assert.equal(caller.claims?.role, "authenticated");
  assert.equal(caller.token, token);
});

Deno.test("a valid user token signed with an ES256 key of the JWKS is accepted", async () => {
  const key = await es256Key("k1");
  const token = await es256Token(key, userClaims(USER_A));
  const caller = await createAuthenticator({ jwks: [key.publicJwk] })(bearer(token));
  assert.equal(caller.userId, USER_A);
});

Deno.test("an expired token is refused with TOKEN_EXPIRED", async () => {
  const key = await es256Key("k1");
  const auth = createAuthenticator({ jwtSecret: SECRET, jwks: [key.publicJwk] });
  const expired = { expiresAt: secondsAgo(60) };
  await refused(auth(bearer(await hs256Token(userClaims(USER_A), expired))), "TOKEN_EXPIRED");
  await refused(
    auth(bearer(await es256Token(key, userClaims(USER_A), expired))),
    "TOKEN_EXPIRED",
    /refresh the session/,
  );
});

Deno.test("a token signed with another key is refused with TOKEN_SIGNATURE_INVALID", async () => {
  const key = await es256Key("k1");
  const auth = createAuthenticator({ jwtSecret: SECRET, jwks: [key.publicJwk] });
  const otherSecret = await hs256Token(userClaims(USER_A), {
    secret: "another-secret-of-32-characters!!",
  });
  await refused(auth(bearer(otherSecret)), "TOKEN_SIGNATURE_INVALID");
  // Same key id, different key: a forgery.
  const forged = await es256Token(await es256Key("k1"), userClaims(USER_A));
  await refused(auth(bearer(forged)), "TOKEN_SIGNATURE_INVALID");
  // A key id the project does not have.
  const unknownKid = await es256Token(await es256Key("k9"), userClaims(USER_A));
  await refused(auth(bearer(unknownKid)), "TOKEN_SIGNATURE_INVALID", /"k9"/);
});

Deno.test("a user token for another audience, or none, is refused with TOKEN_AUDIENCE_INVALID", async () => {
  const auth = createAuthenticator({ jwtSecret: SECRET });
  const other = await hs256Token(userClaims(USER_A, { aud: "some-other-api" }));
  await refused(auth(bearer(other)), "TOKEN_AUDIENCE_INVALID", /"some-other-api"/);
  const none = await hs256Token({ sub: USER_A, role: "authenticated" });
  await refused(auth(bearer(none)), "TOKEN_AUDIENCE_INVALID");
  const custom = createAuthenticator({ jwtSecret: SECRET, audience: "some-other-api" });
  assert.equal((await custom(bearer(other))).userId, USER_A);
  await refused(custom(bearer(await hs256Token(userClaims(USER_A)))), "TOKEN_AUDIENCE_INVALID");
});

Deno.test("an unsigned token (alg none) is refused with TOKEN_ALGORITHM_REFUSED", async () => {
  const key = await es256Key("k1");
  const token = unsignedToken(userClaims(USER_A));
  for (const options of [{ jwtSecret: SECRET }, { jwks: [key.publicJwk] }, { required: true }]) {
    await refused(
      createAuthenticator(options)(bearer(token)),
      "TOKEN_ALGORITHM_REFUSED",
      undefined,
    );
  }
  await refused(
    createAuthenticator({ jwtSecret: SECRET })(bearer(token)),
    "TOKEN_ALGORITHM_REFUSED",
    /unsigned/,
  );
});

Deno.test("an algorithm with no configured key is refused, so a public key is never used as an HMAC secret", async () => {
  const key = await es256Key("k1");
  // HS256 "signed" with the public key's JSON: the classic key-confusion attack.
  const confused = await hs256Token(userClaims(USER_A), {
    secret: JSON.stringify(key.publicJwk),
  });
  await refused(
    createAuthenticator({ jwks: [key.publicJwk] })(bearer(confused)),
    "TOKEN_ALGORITHM_REFUSED",
    /"HS256"/,
  );
  await refused(
    createAuthenticator({ jwtSecret: SECRET })(bearer(await es256Token(key, userClaims(USER_A)))),
    "TOKEN_ALGORITHM_REFUSED",
    /"ES256"/,
  );
});

Deno.test("a malformed token is refused with TOKEN_MALFORMED; a bad header form with UNAUTHORIZED", async () => {
  const auth = createAuthenticator({ jwtSecret: SECRET });
  await refused(auth(bearer("a.b.c")), "TOKEN_MALFORMED");
  await refused(auth(bearer("not-a-jwt-at-all")), "TOKEN_MALFORMED");
  const token = await hs256Token(userClaims(USER_A));
  const [header, payload] = token.split(".");
  await refused(auth(bearer(`${header}.${payload}.`)), "TOKEN_SIGNATURE_INVALID");
  await refused(auth(req("Basic abc")), "UNAUTHORIZED", /Bearer/);
});

Deno.test("a token not valid yet, or whose sub is not a user id, is refused with TOKEN_CLAIMS_INVALID", async () => {
  const auth = createAuthenticator({ jwtSecret: SECRET });
  const early = await hs256Token(userClaims(USER_A, { nbf: secondsAgo(-600) }));
  await refused(auth(bearer(early)), "TOKEN_CLAIMS_INVALID", /"nbf"/);
  const notAUser = await hs256Token(userClaims("not-a-uuid"));
  await refused(auth(bearer(notAUser)), "TOKEN_CLAIMS_INVALID", /"sub"/);
});

Deno.test("the project's anon key is anonymous unless a user is required; its service key is service_role", async () => {
  const anonKey = await hs256Token({ role: "anon", iss: "supabase" });
  const serviceKey = await hs256Token({ role: "service_role", iss: "supabase" });
  const open = createAuthenticator({ jwtSecret: SECRET });
  assert.deepEqual(await open(bearer(anonKey)), { userId: null, owner: "anonymous" });
  const closed = createAuthenticator({ jwtSecret: SECRET, required: true });
  await refused(closed(bearer(anonKey)), "AUTH_REQUIRED", /anon key/);
  assert.deepEqual(await closed(bearer(serviceKey)), { userId: null, owner: "service_role" });
});

Deno.test("API keys identify their owner; unknown bearer tokens are refused once keys are set", async () => {
  const auth = createAuthenticator({ apiKeys: new Map([["ci", "key-123"]]), required: true });
  assert.deepEqual(await auth(req("Bearer key-123")), { userId: null, owner: "key:ci" });
  await refused(auth(req("Bearer key-456")), "UNAUTHORIZED");
  await refused(auth(req()), "AUTH_REQUIRED");
  // A JWT with no key configured to verify it.
  await refused(auth(bearer(await hs256Token(userClaims(USER_A)))), "TOKEN_ALGORITHM_REFUSED");
});

Deno.test("with nothing configured, a JWT is anonymous and the operator is warned once", async () => {
  const warnings: string[] = [];
  const logger = {
    debug() {},
    info() {},
    warn: (message: string) => warnings.push(message),
    error() {},
  };
  const auth = createAuthenticator({ logger });
  const token = await hs256Token(userClaims(USER_A));
  assert.deepEqual(await auth(bearer(token)), { userId: null, owner: "anonymous" });
  assert.deepEqual(await auth(bearer(token)), { userId: null, owner: "anonymous" });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /no signing keys are configured/);
});

Deno.test("the project's new-style keys: a publishable key is the anon key, a known secret key is service_role", async () => {
  const secretKey = "sb_secret_0123456789abcdefghij";
  const open = createAuthenticator({ jwtSecret: SECRET, projectSecretKeys: [secretKey] });
  assert.deepEqual(await open(bearer("sb_publishable_abcdefghij0123")), {
    userId: null,
    owner: "anonymous",
  });
  assert.deepEqual(await open(bearer(secretKey)), { userId: null, owner: "service_role" });
  await refused(open(bearer("sb_secret_someone_elses_key_0123")), "UNAUTHORIZED", /secret key/);
  const closed = createAuthenticator({ jwtSecret: SECRET, required: true });
  await refused(closed(bearer("sb_publishable_abcdefghij0123")), "AUTH_REQUIRED", /publishable/);
});

Deno.test("a user token with a custom role (an access-token hook) is still that user, and needs the audience", async () => {
  const auth = createAuthenticator({ jwtSecret: SECRET, required: true });
  const premium = await hs256Token(userClaims(USER_A, { role: "premium" }));
  const caller = await auth(bearer(premium));
  assert.equal(caller.userId, USER_A);
  assert.equal(caller.owner, `user:${USER_A}`);
  const noAudience = await hs256Token({ sub: USER_A, role: "premium" });
  await refused(auth(bearer(noAudience)), "TOKEN_AUDIENCE_INVALID");
});

Deno.test("a token without exp is refused, and the option auth.jwtIssuer pins the issuer", async () => {
  const auth = createAuthenticator({
    jwtSecret: SECRET,
    issuer: "https://abcd.supabase.co/auth/v1",
  });
  const noExp = await new SignJWT(userClaims(USER_A, { iss: "https://abcd.supabase.co/auth/v1" }))
    .setProtectedHeader({ alg: "HS256" })
    .sign(new TextEncoder().encode(SECRET));
  await refused(auth(bearer(noExp)), "TOKEN_CLAIMS_INVALID", /exp/);
  const right = await hs256Token(userClaims(USER_A, { iss: "https://abcd.supabase.co/auth/v1" }));
  assert.equal((await auth(bearer(right))).userId, USER_A);
  const wrong = await hs256Token(userClaims(USER_A, { iss: "https://other.supabase.co/auth/v1" }));
  await refused(auth(bearer(wrong)), "TOKEN_CLAIMS_INVALID", /iss/);
});
