/**
 * What knowing the caller costs per request: verifying a Supabase user's JWT
 * (legacy HS256 secret, and ES256 with a key from the project's JWKS endpoint
 * after the first fetch) and recognising an API key, each the first time a
 * token is seen and then from the verified-token cache; and the tool-policy
 * check.
 */
import { type AuthOptions, createAuthenticator } from "../../shared/auth/authenticator.ts";
import { ToolPolicy } from "../../shared/tools/tool_policy.ts";
import {
  es256Key,
  es256Token,
  hs256Token,
  SECRET,
  USER_A,
  userClaims,
} from "../auth/test_tokens.ts";
import { type BenchResult, measure } from "./harness.ts";

const bearer = (token: string) =>
  new Request("http://localhost/mcp-loop", { headers: { authorization: `Bearer ${token}` } });

const API_KEY = "ci-key-0123456789abcdef";

/** Runs the authentication benchmarks. */
export async function authBenchmarks(): Promise<BenchResult[]> {
  const key = await es256Key("bench-key");
  const jwks = JSON.stringify({ keys: [key.publicJwk] });
  let fetches = 0;
  const options: AuthOptions = {
    jwtSecret: SECRET,
    jwksUrl: "https://bench.supabase.co/auth/v1/.well-known/jwks.json",
    apiKeys: new Map([["ci", API_KEY]]),
    required: true,
    fetch: () => {
      fetches++;
      return Promise.resolve(
        new Response(jwks, { headers: { "content-type": "application/json" } }),
      );
    },
  };
  // Without the cache every call verifies; with it, only a token's first call does.
  const everyTime = createAuthenticator({ ...options, verifiedTokenTtlMs: 0 });
  const remembering = createAuthenticator(options);
  const hs256 = bearer(await hs256Token(userClaims(USER_A)));
  const es256 = bearer(await es256Token(key, userClaims(USER_A)));
  const apiKey = bearer(API_KEY);
  const policy = new ToolPolicy({
    modes: { candidate: ["finalize_summary", "get_*"] },
    callers: { authenticated: ["*"], anonymous: ["finalize_summary"] },
  });
  const caller = { userId: USER_A, owner: `user:${USER_A}` };
  const firstSight = { iterations: 5_000, warmup: 500 };
  const results = [
    await measure("first sight: a user JWT, HS256 (legacy secret)", () => everyTime(hs256), {
      ...firstSight,
    }),
    await measure("first sight: a user JWT, ES256 (JWKS endpoint)", () => everyTime(es256), {
      ...firstSight,
    }),
    await measure("first sight: an API key (SHA-256)", () => everyTime(apiKey), firstSight),
    await measure(
      "seen before (verified-token cache)",
      (i) => remembering(i % 2 ? es256 : apiKey),
      {
        iterations: 50_000,
        warmup: 1_000,
      },
    ),
    await measure(
      "tool policy check (mode and caller rules)",
      (i) =>
        policy.permits(i % 2 ? "get_loop_status" : "decide_loop_next_action", {
          caller,
          mode: "candidate",
        }),
      { iterations: 200_000, warmup: 10_000 },
    ),
  ];
  results[1].note = `${fetches} JWKS fetch in all`;
  return results;
}
