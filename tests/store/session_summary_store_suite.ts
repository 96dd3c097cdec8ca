/**
 * The session summary store's behaviour, run against every implementation
 * (the in-memory fake and the SQL store on PGlite) so the fake cannot drift.
 */
import assert from "node:assert/strict";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import type { Caller, ConversationStore } from "../../shared/ports.ts";
import type { SessionSummaryStore } from "../../shared/store/session_summary_store.ts";

/** Makes a summary store and the conversation store whose messages it reads. */
export type SummaryStoreFactory = () => Promise<{
  summaries: SessionSummaryStore;
  conversations: ConversationStore;
}>;

function user(): Caller {
  const id = crypto.randomUUID();
  return { userId: id, owner: `user:${id}`, claims: { sub: id, role: "authenticated" } };
}

function key(name: string): Caller {
  return { userId: null, owner: `key:${name}-${crypto.randomUUID()}` };
}

async function turns(store: ConversationStore, caller: Caller, sessionId: string, count: number) {
  for (let i = 0; i < count; i++) {
    await store.saveTurn({
      caller,
      sessionId,
      userMessage: {
        content: `question ${i}`,
        embedding: hashingVector(`question ${i}`),
        embeddingModel: "hashing-v1",
      },
      assistantMessage: { content: `answer ${i}` },
      events: [],
    });
  }
}

/** Registers the suite's tests for one implementation. */
export function sessionSummaryStoreSuite(name: string, make: SummaryStoreFactory): void {
  Deno.test(`${name}: a session's history comes oldest first, after a position, up to a limit`, async () => {
    const { summaries, conversations } = await make();
    const caller = key("a");
    await turns(conversations, caller, "s1", 3);
    const all = await summaries.history(caller, "s1", { afterSeq: -1, limit: 100 });
    assert.deepEqual(all.map((m) => m.content), [
      "question 0",
      "answer 0",
      "question 1",
      "answer 1",
      "question 2",
      "answer 2",
    ]);
    assert.deepEqual(all.map((m) => m.role).slice(0, 2), ["user", "assistant"]);
    assert.ok(all.every((m, i) => i === 0 || m.seq > all[i - 1].seq));
    const later = await summaries.history(caller, "s1", { afterSeq: all[3].seq, limit: 1 });
    assert.deepEqual(later.map((m) => m.content), ["question 2"]);
    assert.equal(await summaries.load(caller, "s1", 10), undefined);
  });

  Deno.test(`${name}: a saved summary loads with what of the recent window it covers`, async () => {
    const { summaries, conversations } = await make();
    const caller = user();
    await turns(conversations, caller, "s1", 3);
    const all = await summaries.history(caller, "s1", { afterSeq: -1, limit: 100 });
    const saved = await summaries.save(caller, "s1", {
      summary: "They asked twice.",
      coveredSeq: all[3].seq,
      coveredMessages: 4,
      expectedVersion: 0,
    });
    assert.equal(saved, true);
    const loaded = await summaries.load(caller, "s1", 4);
    assert.equal(loaded?.summary, "They asked twice.");
    assert.equal(loaded?.coveredSeq, all[3].seq);
    assert.equal(loaded?.coveredMessages, 4);
    assert.equal(loaded?.version, 1);
    assert.deepEqual(loaded?.coveredRecentIds.sort(), [all[2].id, all[3].id].sort());
  });

  Deno.test(`${name}: the state counts the older messages a summary does not cover, and their bytes`, async () => {
    const { summaries, conversations } = await make();
    const caller = user();
    const empty = await summaries.loadState(caller, "none", 4);
    assert.deepEqual(empty, { summary: undefined, older: { messages: 0, bytes: 0 } });
    await turns(conversations, caller, "s1", 4); // 8 messages: 4 recent, 4 older
    const before = await summaries.loadState(caller, "s1", 4);
    assert.equal(before.summary, undefined);
    // "question 0", "answer 0", "question 1", "answer 1": 10 + 8 + 10 + 8 bytes.
    assert.deepEqual(before.older, { messages: 4, bytes: 36 });
    assert.deepEqual((await summaries.loadState(caller, "s1", 0)).older, {
      messages: 8,
      bytes: 72,
    });
    assert.deepEqual((await summaries.loadState(caller, "s1", 10)).older, {
      messages: 0,
      bytes: 0,
    });
    const all = await summaries.history(caller, "s1", { afterSeq: -1, limit: 100 });
    await summaries.save(caller, "s1", {
      summary: "Two questions.",
      coveredSeq: all[2].seq,
      coveredMessages: 3,
      expectedVersion: 0,
    });
    const after = await summaries.loadState(caller, "s1", 4);
    assert.equal(after.summary?.summary, "Two questions.");
    assert.deepEqual(after.summary?.coveredRecentIds, []);
    assert.deepEqual(after.older, { messages: 1, bytes: 8 }, "only answer 1 is left");
    const other = user();
    assert.deepEqual((await summaries.loadState(other, "s1", 4)).older, { messages: 0, bytes: 0 });
  });

  Deno.test(`${name}: a save that covers no message of the session stores nothing`, async () => {
    const { summaries, conversations } = await make();
    const caller = key("e");
    await turns(conversations, caller, "s1", 1);
    const [last] = (await summaries.history(caller, "s1", { afterSeq: -1, limit: 10 })).slice(-1);
    const gone = { summary: "x", coveredSeq: last.seq + 1_000_000, coveredMessages: 1 };
    assert.equal(await summaries.save(caller, "s1", { ...gone, expectedVersion: 0 }), false);
    assert.equal(
      await summaries.save(caller, "other", { ...gone, coveredSeq: last.seq, expectedVersion: 0 }),
      false,
    );
    assert.equal(await summaries.load(caller, "s1", 10), undefined);
  });

  Deno.test(`${name}: a save at a stale version loses; the current version wins`, async () => {
    const { summaries, conversations } = await make();
    const caller = key("b");
    await turns(conversations, caller, "s1", 2);
    const seqs = (await summaries.history(caller, "s1", { afterSeq: -1, limit: 10 })).map((m) =>
      m.seq
    );
    const first = { summary: "one", coveredSeq: seqs[0], coveredMessages: 1, expectedVersion: 0 };
    assert.equal(await summaries.save(caller, "s1", first), true);
    assert.equal(await summaries.save(caller, "s1", first), false, "a second first save");
    const next = { summary: "two", coveredSeq: seqs[1], coveredMessages: 2, expectedVersion: 1 };
    assert.equal(await summaries.save(caller, "s1", next), true);
    assert.equal(await summaries.save(caller, "s1", next), false);
    const loaded = await summaries.load(caller, "s1", 10);
    assert.equal(loaded?.summary, "two");
    assert.equal(loaded?.version, 2);
  });

  for (
    const [kind, make2] of [["keys", () => [key("c"), key("d")]], [
      "users",
      () => [user(), user()],
    ]] as const
  ) {
    Deno.test(`${name}: callers (${kind}) never see or change each other's summaries`, async () => {
      const { summaries, conversations } = await make();
      const [alice, bob] = make2();
      await turns(conversations, alice, "shared-id", 2);
      await turns(conversations, bob, "shared-id", 1);
      const seqOf = async (caller: Caller) =>
        (await summaries.history(caller, "shared-id", { afterSeq: -1, limit: 1 }))[0].seq;
      const save = {
        summary: "alice's",
        coveredSeq: await seqOf(alice),
        coveredMessages: 1,
        expectedVersion: 0,
      };
      assert.equal(await summaries.save(alice, "shared-id", save), true);
      assert.equal(await summaries.load(bob, "shared-id", 10), undefined);
      const bobs = await summaries.history(bob, "shared-id", { afterSeq: -1, limit: 10 });
      assert.deepEqual(bobs.map((m) => m.content), ["question 0", "answer 0"], "only bob's own");
      assert.equal(
        await summaries.save(bob, "shared-id", save),
        false,
        "alice's message covers nothing of bob's",
      );
      assert.equal(
        await summaries.save(bob, "shared-id", {
          ...save,
          summary: "bob's",
          coveredSeq: await seqOf(bob),
        }),
        true,
        "bob's own row",
      );
      assert.equal((await summaries.load(alice, "shared-id", 10))?.summary, "alice's");
      assert.equal((await summaries.load(bob, "shared-id", 10))?.summary, "bob's");
    });
  }
}
