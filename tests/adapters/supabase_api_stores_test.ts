/**
 * The stores that go through Supabase's API (`MCP_LOOP_STORE=supabase`),
 * against the project's own SQL functions: PostgREST's RPC over the
 * Supabase-shaped PGlite (tests/fakes/postgrest_rpc.ts). The conversation
 * store suite the SQL stores pass, run through the API; compaction's summaries
 * as a signed-in user under row level security; and the fake refusing what
 * PostgREST refuses.
 */
import assert from "node:assert/strict";
import { SupabaseConversationStore } from "../../shared/adapters/supabase/supabase_conversation_store.ts";
import { SupabaseMemoryStores } from "../../shared/adapters/supabase/supabase_memory_stores.ts";
import { SupabaseSessionSummaryStore } from "../../shared/adapters/supabase/supabase_session_summaries.ts";
import { SupabaseRpc } from "../../shared/adapters/supabase/supabase_rpc.ts";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import { isAppError } from "../../shared/errors.ts";
import { compactSession } from "../../shared/loop/compaction.ts";
import { extractiveSummary } from "../../shared/loop/session_summarizer.ts";
import { ANONYMOUS, type Caller } from "../../shared/ports.ts";
import { USER_A, USER_B, userClaims } from "../auth/test_tokens.ts";
import { postgrestRpc } from "../fakes/postgrest_rpc.ts";
import { migratedSupabasePglite } from "../support/supabase_shape.ts";
import { conversationStoreSuite, type FullStore } from "../store/conversation_store_suite.ts";
import { memoryDataSuite } from "../store/memory_data_suite.ts";
import type { MemoryOptions } from "../../shared/store/sql_conversation_store.ts";

const URL_ = "https://abcdefghijklmnopqrst.supabase.co";
const KEYS = {
  publishableKey: "sb_publishable_test",
  secretKey: "sb_secret_test",
  /** A test user's token is `user:<their id>`: on this path a user's calls always carry one. */
  users: (token: string) => {
    const [, id] = token.match(/^user:([0-9a-f-]{36})$/) ?? [];
    return id ? userClaims(id) : undefined;
  },
};
/** `caller` as it reaches the Supabase stores: a user with their (verified) access token. */
const withToken = (caller: Caller): Caller =>
  caller.userId ? { ...caller, token: `user:${caller.userId}` } : caller;
const ALICE = withToken({ userId: USER_A, owner: `user:${USER_A}` });
const BOB = withToken({ userId: USER_B, owner: `user:${USER_B}` });

async function api() {
  const { sql } = await migratedSupabasePglite();
  const fake = postgrestRpc(sql, KEYS);
  // The server's own connection, for what PostgREST must not write (audit rows).
  return { ...fake, options: { url: URL_, ...KEYS, fetch: fake.fetch, sql } };
}

const makeStore = async (memory?: Partial<MemoryOptions>) => {
  const { options } = await api();
  const conversations = new SupabaseConversationStore({ ...options, memory });
  const stores = new SupabaseMemoryStores(options);
  const store: FullStore = {
    loadContext: (input) =>
      conversations.loadContext({ ...input, caller: withToken(input.caller) }),
    saveTurn: (input) => conversations.saveTurn({ ...input, caller: withToken(input.caller) }),
    listMessages: (caller, sessionId, limit) =>
      conversations.listMessages(withToken(caller), sessionId, limit),
    listSessions: (caller, prefix, limit) =>
      conversations.listSessions(withToken(caller), prefix, limit),
    messagesByIds: (caller, ids) => conversations.messagesByIds(withToken(caller), ids),
    getMemory: (caller) => stores.getMemory(withToken(caller)),
    putMemory: (caller, document, version) =>
      stores.putMemory(withToken(caller), document, version),
    deleteSession: (caller, sessionId, opts) =>
      stores.deleteSession(withToken(caller), sessionId, opts),
    deleteEverything: (caller) => stores.deleteEverything(withToken(caller)),
    exportHead: (caller) => stores.exportHead(withToken(caller)),
    exportPage: (caller, section, page) => stores.exportPage(withToken(caller), section, page),
  };
  return store;
};
conversationStoreSuite("Supabase API store over PostgREST on PGlite", makeStore);
memoryDataSuite("Supabase API store over PostgREST on PGlite", makeStore);

Deno.test("compaction through the API: a signed-in user's summary is stored, read back, and hers alone", async () => {
  const { options, calls } = await api();
  const conversations = new SupabaseConversationStore(options);
  const summaries = new SupabaseSessionSummaryStore(options);
  const session = `compact-${crypto.randomUUID()}`;
  for (let i = 0; i < 6; i++) {
    const content = `Turn ${i}: the Lisbon budget is ${i * 100} euros for the offsite.`;
    await conversations.saveTurn({
      caller: ALICE,
      sessionId: session,
      userMessage: { content, embedding: hashingVector(content), embeddingModel: "hashing-v1" },
      assistantMessage: { content: `Noted, ${i * 100} euros.` },
      events: [],
    });
  }
  const deps = {
    store: summaries,
    summarize: (input: Parameters<typeof extractiveSummary>[0]) =>
      Promise.resolve(extractiveSummary(input)),
    options: { afterTokens: 20, summaryTokens: 200, keepRecent: 4 },
  };
  const summary = await compactSession({ deps, caller: ALICE, sessionId: session });
  assert.ok(summary, "a summary was stored");
  assert.equal(summary.version, 1);
  assert.equal(summary.coveredMessages, 8, "four turns older than the recent four messages");
  assert.match(summary.summary, /Lisbon budget/);
  assert.deepEqual(summary.coveredRecentIds, []);
  // Bob, passing Alice's owner, reaches nothing of hers: row level security, not the argument.
  const asBob = { ...BOB, owner: ALICE.owner };
  assert.equal(await summaries.load(asBob, session, 4), undefined);
  assert.deepEqual(await summaries.history(asBob, session, { afterSeq: -1, limit: 100 }), []);
  // A save over a version someone else replaced does not win.
  assert.equal(
    await summaries.save(ALICE, session, {
      summary: "stale",
      coveredSeq: 1,
      coveredMessages: 2,
      expectedVersion: 0,
    }),
    false,
  );
  assert.ok(calls.includes("save_session_summary") && calls.includes("session_history"));
});

Deno.test("the fake refuses what PostgREST refuses: an argument the function lacks, a stranger's token", async () => {
  const { options } = await api();
  const rpc = new SupabaseRpc(options);
  await assert.rejects(
    rpc.call(ANONYMOUS, "load_session_summary", { p_session: "s", p_owner: "key:x" }, "read"),
    (e) =>
      isAppError(e) && e.code === "DB_UNAVAILABLE" && /PGRST202|Could not find/.test(e.message),
  );
  const stranger: Caller = { userId: USER_B, owner: `user:${USER_B}`, token: "forged" };
  await assert.rejects(
    rpc.call(stranger, "get_working_memory", { p_owner: stranger.owner }, "read"),
    (e) => isAppError(e),
  );
  // The anon role may not call the functions at all (the migrations revoke them).
  const anonymous = new SupabaseRpc({ ...options, secretKey: options.publishableKey });
  await assert.rejects(
    anonymous.call(ANONYMOUS, "get_working_memory", { p_owner: "key:x" }, "read"),
    (e) => isAppError(e) && /permission denied/.test(e.message),
  );
});
