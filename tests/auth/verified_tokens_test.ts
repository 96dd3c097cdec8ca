import assert from "node:assert/strict";
import { createAuthenticator } from "../../shared/auth/authenticator.ts";
import { VerifiedTokens } from "../../shared/auth/verified_tokens.ts";
import { isAppError } from "../../shared/errors.ts";
import { hs256Token, SECRET, USER_A, userClaims } from "./test_tokens.ts";

const user = (exp?: number) => ({
  userId: USER_A,
  owner: `user:${USER_A}`,
  ...(exp === undefined ? {} : { claims: { exp } }),
});

Deno.test("a remembered caller is returned until the TTL passes", () => {
  let now = 1_000_000;
  const tokens = new VerifiedTokens({ ttlMs: 5_000, now: () => now });
  tokens.set("t", user());
  assert.deepEqual(tokens.get("t"), user());
  now += 4_999;
  assert.ok(tokens.get("t"));
  now += 1;
  assert.equal(tokens.get("t"), undefined);
});

Deno.test("a token is never remembered past its own exp", () => {
  let now = 1_000_000;
  const tokens = new VerifiedTokens({ ttlMs: 300_000, now: () => now });
  tokens.set("t", user(1_002)); // exp in 2 s
  now += 1_999;
  assert.ok(tokens.get("t"));
  now += 1;
  assert.equal(tokens.get("t"), undefined);
});

Deno.test("the oldest entry goes when the map is full, and a TTL of 0 remembers nothing", () => {
  const tokens = new VerifiedTokens({ max: 2 });
  tokens.set("a", user());
  tokens.set("b", user());
  tokens.set("c", user());
  assert.equal(tokens.get("a"), undefined);
  assert.ok(tokens.get("b") && tokens.get("c"));
  const off = new VerifiedTokens({ ttlMs: 0 });
  off.set("a", user());
  assert.equal(off.get("a"), undefined);
});

Deno.test("a token that expires after it was first accepted is refused from then on", async () => {
  const auth = createAuthenticator({ jwtSecret: SECRET, required: true });
  const token = await hs256Token(userClaims(USER_A), {
    expiresAt: Math.floor(Date.now() / 1000) + 60,
  });
  const req = () =>
    new Request("http://localhost/", { headers: { authorization: `Bearer ${token}` } });
  assert.equal((await auth(req())).userId, USER_A);
  assert.equal((await auth(req())).userId, USER_A, "remembered");
  // Two minutes later, for the cache and for jose (which reads `new Date()`).
  const RealDate = Date;
  class Later extends RealDate {
    constructor(value?: number | string | Date) {
      super(value ?? RealDate.now() + 120_000);
    }
    static override now() {
      return RealDate.now() + 120_000;
    }
  }
  globalThis.Date = Later as DateConstructor;
  try {
    await assert.rejects(auth(req()), (e) => isAppError(e) && e.code === "TOKEN_EXPIRED");
  } finally {
    globalThis.Date = RealDate;
  }
});
