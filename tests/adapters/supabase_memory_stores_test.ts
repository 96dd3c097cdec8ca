import assert from "node:assert/strict";
import { SupabaseMemoryStores } from "../../shared/adapters/supabase/supabase_memory_stores.ts";
import { isAppError } from "../../shared/errors.ts";
import { ANONYMOUS, type Caller } from "../../shared/ports.ts";
import { recordingFetch } from "../fakes/recording_fetch.ts";

const URL_ = "https://project.supabase.co";
const USER: Caller = {
  userId: "6f1c1b0e-8a4f-4f3e-9d55-0c3a1f7b2e11",
  owner: "user:6f1c1b0e-8a4f-4f3e-9d55-0c3a1f7b2e11",
  token: "user.jwt.token",
};
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

Deno.test("working memory goes through get_working_memory and put_working_memory as the user", async () => {
  const replies = [json([{ document: { facts: ["likes tea"] }, version: 3 }]), json(4), json(null)];
  const { fetch, requests } = recordingFetch(() => replies.shift()!);
  const stores = new SupabaseMemoryStores({ url: URL_, publishableKey: "anon-key", fetch });
  assert.deepEqual(await stores.getMemory(USER), {
    document: { facts: ["likes tea"] },
    version: 3,
  });
  assert.equal(await stores.putMemory(USER, { facts: ["likes tea", "a\u0000b"] }, 3), true);
  assert.equal(await stores.putMemory(USER, { facts: [] }, 3), false, "someone wrote first");
  assert.deepEqual(requests.map((r) => r.url.replace(`${URL_}/rest/v1/rpc/`, "")), [
    "get_working_memory",
    "put_working_memory",
    "put_working_memory",
  ]);
  assert.equal(requests[0].headers.authorization, "Bearer user.jwt.token");
  assert.deepEqual(requests[1].body, {
    p_owner: USER.owner,
    p_document: { facts: ["likes tea", "a\uFFFDb"] },
    p_expected_version: 3,
  });
});

Deno.test("forgetting and export call their SQL functions and report the counts", async () => {
  const replies = [
    json([{ messages: 4, runs: 1, summaries: 0, audit_rows: 2 }]),
    json([{ messages: 9, runs: 2, summaries: 1, audit_rows: 3, loops: 1, memory: 1 }]),
    json([{ cursor: null, item: { owner: USER.owner, exportedAt: "t", workingMemory: null } }]),
    json([{ cursor: "7 s1", item: { id: "m1", content: "hi" } }, {
      cursor: "9 s1",
      item: { id: "m2", content: "there" },
    }]),
  ];
  const { fetch, requests } = recordingFetch(() => replies.shift()!);
  const stores = new SupabaseMemoryStores({ url: URL_, publishableKey: "anon-key", fetch });
  assert.deepEqual(await stores.deleteSession(USER, "s1", { keepRunning: true }), {
    messages: 4,
    runs: 1,
    summaries: 0,
    auditRows: 2,
  });
  assert.deepEqual(await stores.deleteEverything(USER), {
    messages: 9,
    runs: 2,
    summaries: 1,
    auditRows: 3,
    loops: 1,
    memory: 1,
  });
  assert.equal((await stores.exportHead(USER)).owner, USER.owner);
  assert.deepEqual(
    await stores.exportPage(USER, "messages", { after: "5 s1", limit: 2, maxBytes: 1000 }),
    { rows: [{ id: "m1", content: "hi" }, { id: "m2", content: "there" }], next: "9 s1" },
  );
  assert.deepEqual(requests.map((r) => [r.url.replace(`${URL_}/rest/v1/rpc/`, ""), r.body]), [
    ["delete_chat_session", { p_session_id: "s1", p_owner: USER.owner, p_keep_running: true }],
    ["forget_chat_caller", { p_owner: USER.owner }],
    ["export_chat_page", { p_owner: USER.owner, p_section: "head" }],
    ["export_chat_page", {
      p_owner: USER.owner,
      p_section: "messages",
      p_after: "5 s1",
      p_limit: 2,
      p_max_bytes: 1000,
    }],
  ]);
});

Deno.test("an anonymous caller without the secret key is refused before any request", async () => {
  const { fetch, requests } = recordingFetch(() => json([]));
  const stores = new SupabaseMemoryStores({ url: URL_, publishableKey: "anon-key", fetch });
  await assert.rejects(
    stores.exportHead(ANONYMOUS),
    (e) => isAppError(e) && e.code === "UNAUTHORIZED",
  );
  assert.equal(requests.length, 0);
});
