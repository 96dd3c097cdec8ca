/**
 * The part of a Supabase project a deployed function calls on its own: Supabase
 * Auth's JWKS (`GET <SUPABASE_URL>/auth/v1/.well-known/jwks.json`, public, no
 * API key). Served on 127.0.0.2, a loopback address that is not one of a local
 * stack's hosts, so a function given this SUPABASE_URL counts as deployed.
 * Anything else is answered 404 and recorded, so a test sees unexpected calls.
 */
import type { TestKey } from "../auth/test_tokens.ts";

/** A served fake project. */
export interface FakeSupabase {
  /** The project URL (`SUPABASE_URL`). */
  url: string;
  /** Every request's method and path, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** Serves the JWKS of `keys` (their public halves). */
export function serveFakeSupabase({ keys }: { keys: TestKey[] }): FakeSupabase {
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.2", port: 0, onListen: () => {} }, (req) => {
    const { pathname } = new URL(req.url);
    requests.push(`${req.method} ${pathname}`);
    if (req.method === "GET" && pathname === "/auth/v1/.well-known/jwks.json") {
      return Response.json({ keys: keys.map((key) => key.publicJwk) }, {
        headers: { "cache-control": "public, max-age=600" },
      });
    }
    return Response.json({ message: "no such path in this fake" }, { status: 404 });
  });
  return {
    url: `http://127.0.0.2:${(server.addr as Deno.NetAddr).port}`,
    requests,
    close: () => server.shutdown(),
  };
}
