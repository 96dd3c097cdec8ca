import assert from "node:assert/strict";
import { SupabaseRpc } from "../../shared/adapters/supabase/supabase_rpc.ts";
import { isAppError } from "../../shared/errors.ts";
import type { Caller } from "../../shared/ports.ts";
import { recordingFetch } from "../fakes/recording_fetch.ts";

const SIGNED_IN: Caller = { userId: "u-1", owner: "user:u-1", token: "jwt.of.u1" };
const ANYONE: Caller = { userId: null, owner: "anonymous" };

function rpcAnswering(respond: () => Response | Promise<Response>, secretKey?: string) {
  const recorded = recordingFetch(respond);
  const rpc = new SupabaseRpc({
    url: "https://ref.supabase.co/",
    publishableKey: "pk",
    secretKey,
    fetch: recorded.fetch,
  });
  return { rpc, requests: recorded.requests };
}

Deno.test("an RPC call is a JSON POST to /rest/v1/rpc/{fn} with the caller's token, as supabase-js sends it", async () => {
  const { rpc, requests } = rpcAnswering(() => Response.json([{ n: 1 }]));
  assert.deepEqual(await rpc.call(SIGNED_IN, "count_things", { p_limit: 3 }, "count"), [{ n: 1 }]);
  const [request] = requests;
  assert.equal(request.method, "POST");
  assert.equal(request.url, "https://ref.supabase.co/rest/v1/rpc/count_things");
  assert.equal(request.headers.apikey, "pk");
  assert.equal(request.headers.authorization, "Bearer jwt.of.u1");
  assert.equal(request.headers["content-type"], "application/json");
  assert.equal(request.headers["content-profile"], "public");
  assert.deepEqual(request.body, { p_limit: 3 });
});

Deno.test("a function returning void answers an empty body, read as null", async () => {
  const { rpc } = rpcAnswering(() => new Response(null, { status: 204 }));
  assert.equal(await rpc.call(SIGNED_IN, "touch", {}, "touch"), null);
});

Deno.test("a caller without a token goes with the secret key in both headers", async () => {
  const { rpc, requests } = rpcAnswering(() => Response.json(7), "sk");
  assert.equal(await rpc.call(ANYONE, "f", {}, "f"), 7);
  assert.equal(requests[0].headers.apikey, "sk");
  assert.equal(requests[0].headers.authorization, "Bearer sk");
});

Deno.test("refusals and failures become DB_UNAVAILABLE saying what was attempted and why", async () => {
  const refused = rpcAnswering(() =>
    Response.json({ code: "42501", message: "permission denied for function f" }, { status: 403 })
  );
  await assert.rejects(
    refused.rpc.call(SIGNED_IN, "f", {}, "read the notes"),
    (e) =>
      isAppError(e) && e.code === "DB_UNAVAILABLE" &&
      e.message ===
        "Could not read the notes through Supabase: permission denied for function f (42501)",
  );
  const gateway = rpcAnswering(() =>
    new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway" })
  );
  await assert.rejects(
    gateway.rpc.call(SIGNED_IN, "f", {}, "read the notes"),
    (e) =>
      isAppError(e) && /read the notes through Supabase: HTTP 502 Bad Gateway$/.test(e.message),
  );
  const down = rpcAnswering(() => Promise.reject(new TypeError("error sending request")));
  await assert.rejects(
    down.rpc.call(SIGNED_IN, "f", {}, "read the notes"),
    (e) => isAppError(e) && e.code === "DB_UNAVAILABLE" && /error sending request/.test(e.message),
  );
  const broken = rpcAnswering(() =>
    new Response(
      new ReadableStream({ pull: (c) => c.error(new TypeError("connection reset mid-body")) }),
    )
  );
  await assert.rejects(
    broken.rpc.call(SIGNED_IN, "f", {}, "read the notes"),
    (e) => isAppError(e) && e.code === "DB_UNAVAILABLE" && /connection reset/.test(e.message),
  );
  const garbled = rpcAnswering(() => new Response("{not json", { status: 200 }));
  await assert.rejects(
    garbled.rpc.call(SIGNED_IN, "f", {}, "read the notes"),
    (e) => isAppError(e) && /not JSON/.test(e.message),
  );
});
