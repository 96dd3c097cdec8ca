import assert from "node:assert/strict";
import { asCaller } from "../../shared/store/as_caller.ts";
import { SqlConversationStore } from "../../shared/store/sql_conversation_store.ts";
import { SqlSessionSummaryStore } from "../../shared/store/sql_session_summary_store.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { MemorySessionSummaryStore } from "../fakes/memory_session_summary_store.ts";
import { sharedPglite } from "../support/pglite.ts";
import { sessionSummaryStoreSuite } from "./session_summary_store_suite.ts";

sessionSummaryStoreSuite("in-memory summary store", () => {
  const conversations = new MemoryConversationStore();
  return Promise.resolve({
    conversations,
    summaries: new MemorySessionSummaryStore(conversations),
  });
});

sessionSummaryStoreSuite("SQL summary store on PGlite", async () => {
  const sql = await sharedPglite();
  return {
    conversations: new SqlConversationStore(sql),
    summaries: new SqlSessionSummaryStore(sql),
  };
});

Deno.test("row level security: a signed-in user's plain SQL sees only their own session summaries", async () => {
  const sql = await sharedPglite();
  const store = new SqlSessionSummaryStore(sql);
  const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
  const alice = { userId: a, owner: `user:${a}`, claims: { sub: a, role: "authenticated" } };
  const bob = { userId: b, owner: `user:${b}`, claims: { sub: b, role: "authenticated" } };
  await new SqlConversationStore(sql).saveTurn({
    caller: alice,
    sessionId: "rls",
    userMessage: { content: "private", embedding: [1, 0], embeddingModel: "m" },
    events: [],
  });
  const [{ seq }] = await store.history(alice, "rls", { afterSeq: -1, limit: 1 });
  const save = { summary: "private", coveredSeq: seq, coveredMessages: 1, expectedVersion: 0 };
  assert.equal(await store.save(alice, "rls", save), true);
  const seen = await asCaller(
    sql,
    bob,
    (db) => db.query<{ owner: string }>("select owner from public.session_summaries"),
  );
  assert.ok(seen.every((row) => row.owner === bob.owner), JSON.stringify(seen));
  const changed = await asCaller(
    sql,
    bob,
    (db) =>
      db.query("update public.session_summaries set summary = 'x' where owner = $1 returning 1", [
        alice.owner,
      ]),
  );
  assert.deepEqual(changed, []);
  assert.equal((await store.load(alice, "rls", 10))?.summary, "private");
});
