/**
 * The conversation store's behaviour, run against every implementation (the
 * in-memory fake and the SQL store on PGlite) so the fake cannot drift.
 */
import assert from "node:assert/strict";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import {
  ANONYMOUS,
  type AuditEvent,
  type Caller,
  type ConversationStore,
} from "../../shared/ports.ts";
import type { CallerDataStore } from "../../shared/store/caller_data_port.ts";
import type { MemoryOptions } from "../../shared/store/sql_conversation_store.ts";
import type { WorkingMemoryStore } from "../../shared/store/working_memory_port.ts";

/** A conversation store that also keeps working memory and a caller's data (the fake; SQL). */
export type FullStore = ConversationStore & WorkingMemoryStore & CallerDataStore;

/** Makes a store with the given memory options. */
export type StoreFactory = (options?: Partial<MemoryOptions>) => Promise<FullStore>;

/** How a suite's tests are registered (Postgres: skipped without a server; its pool outlives tests). */
export interface SuiteOptions {
  ignore?: boolean;
  sanitize?: boolean;
}

/** Registers one test of a suite. */
export function suiteTest(
  { ignore = false, sanitize = true }: SuiteOptions,
): (name: string, fn: () => Promise<void>) => void {
  // Deno's own defaults unless told not to sanitize.
  const off = sanitize ? {} : { sanitizeOps: false, sanitizeResources: false };
  return (name, fn) => Deno.test({ name, ignore, fn, ...off });
}

/**
 * The embedding model the suites store under: not an offline embedder's name,
 * so the vector ranking counts at `semanticWeight` (the suites give vectors).
 */
export const MODEL = "suite-embedder";

/** A signed-in user of its own. */
export function user(): Caller {
  const id = crypto.randomUUID();
  return { userId: id, owner: `user:${id}`, claims: { sub: id, role: "authenticated" } };
}

/** Stores a turn: `content` embedded by the hashing embedder (or `embedding`), and a reply. */
export async function say(
  store: ConversationStore,
  caller: Caller,
  sessionId: string,
  content: string,
  reply?: string,
  { embedding = hashingVector(content), model = MODEL, events = [] }: {
    embedding?: number[];
    model?: string;
    events?: AuditEvent[];
  } = {},
) {
  await store.saveTurn({
    caller,
    sessionId,
    userMessage: { content, embedding, embeddingModel: model },
    assistantMessage: reply === undefined ? undefined : { content: reply },
    events,
  });
}

/** Loads the context for `text` (embedded by the hashing embedder, or `embedding`). */
export function load(
  store: ConversationStore,
  caller: Caller,
  sessionId: string,
  text: string,
  model = MODEL,
  embedding = hashingVector(text),
) {
  return store.loadContext({ caller, sessionId, text, embedding, embeddingModel: model });
}

const DISTRACTORS = [
  "The quarterly marketing budget review is on Friday",
  "Please book a meeting room for the design sync",
  "Our office coffee machine is broken again",
  "The new laptop policy starts next month",
  "Remember to submit travel expenses by the 5th",
  "The team offsite will be in Porto this year",
  "Can you share the slides from the all-hands?",
  "The wifi password changed this morning",
  "We are migrating the wiki to a new tool",
  "Lunch is catered on Thursdays",
  "The parking garage closes at 9pm",
  "Security training is mandatory for everyone",
];

/** Registers the suite's tests under `name`. */
export function conversationStoreSuite(
  name: string,
  makeStore: StoreFactory,
  options: SuiteOptions = {},
): void {
  const test = suiteTest(options);
  test(`${name}: a turn's user message and reply come back as recent messages, oldest first`, async () => {
    const store = await makeStore();
    const session = crypto.randomUUID();
    await say(store, ANONYMOUS, session, "first question", "first answer");
    await say(store, ANONYMOUS, session, "second question");
    const { recentMessages } = await load(store, ANONYMOUS, session, "next");
    assert.deepEqual(recentMessages.map((m) => [m.role, m.content]), [
      ["user", "first question"],
      ["assistant", "first answer"],
      ["user", "second question"],
    ]);
    assert.ok(
      recentMessages.every((m) =>
        m.sessionId === session && !Number.isNaN(Date.parse(m.createdAt))
      ),
    );
  });

  test(`${name}: only the last recentLimit messages are recent`, async () => {
    const store = await makeStore({ recentLimit: 3 });
    const session = crypto.randomUUID();
    for (let i = 1; i <= 5; i++) await say(store, ANONYMOUS, session, `message ${i}`);
    const { recentMessages } = await load(store, ANONYMOUS, session, "next");
    assert.deepEqual(recentMessages.map((m) => m.content), ["message 3", "message 4", "message 5"]);
  });

  test(`${name}: the relevant message ranks first among distractors, outside the recent window`, async () => {
    const store = await makeStore({ recentLimit: 2, matchCount: 5, matchThreshold: 0.05 });
    const session = crypto.randomUUID();
    await say(
      store,
      ANONYMOUS,
      session,
      "Our Kubernetes cluster keeps evicting pods under memory pressure",
    );
    for (const text of DISTRACTORS) await say(store, ANONYMOUS, session, text);
    const { semanticMatches, recentMessages } = await load(
      store,
      ANONYMOUS,
      session,
      "why are kubernetes pods evicted for memory pressure?",
    );
    assert.equal(
      semanticMatches[0]?.content,
      "Our Kubernetes cluster keeps evicting pods under memory pressure",
    );
    assert.ok((semanticMatches[0].similarity ?? 0) > 0.3);
    assert.deepEqual(semanticMatches[0].foundBy, ["full_text", "vector"]);
    const recentIds = new Set(recentMessages.map((m) => m.id));
    assert.ok(
      semanticMatches.every((m) => !recentIds.has(m.id)),
      "matches exclude the recent window",
    );
    const statements = semanticMatches.filter((m) => !m.content.endsWith("?"));
    for (let i = 1; i < statements.length; i++) {
      assert.ok(statements[i - 1].score >= statements[i].score, "best first");
    }
  });

  test(`${name}: with the vectors alone, matches below the threshold are left out, and at most matchCount come back`, async () => {
    const store = await makeStore({
      recentLimit: 0,
      matchCount: 2,
      matchThreshold: 0.5,
      fullTextWeight: 0,
    });
    const session = crypto.randomUUID();
    for (
      const text of [
        "invoice overdue reminder",
        "invoice overdue notice",
        "invoice overdue letter",
        "holiday plans",
      ]
    ) {
      await say(store, ANONYMOUS, session, text);
    }
    const { semanticMatches } = await load(store, ANONYMOUS, session, "invoice overdue");
    assert.equal(semanticMatches.length, 2);
    assert.ok(
      semanticMatches.every((m) =>
        (m.similarity ?? 0) >= 0.5 && m.content.startsWith("invoice") &&
        m.foundBy.join() === "vector"
      ),
    );
  });

  test(`${name}: vectors of another embedding model are never matched`, async () => {
    const store = await makeStore({ recentLimit: 0, matchThreshold: -1, fullTextWeight: 0 });
    const session = crypto.randomUUID();
    await say(store, ANONYMOUS, session, "exactly this text");
    const other = await load(store, ANONYMOUS, session, "exactly this text", "other-model");
    assert.deepEqual(other.semanticMatches, []);
    const same = await load(store, ANONYMOUS, session, "exactly this text");
    assert.equal(same.semanticMatches.length, 1);
  });

  test(`${name}: one user cannot read another user's messages, even with the same session id`, async () => {
    const store = await makeStore({ recentLimit: 10, matchThreshold: -1 });
    const [alice, bob] = [user(), user()];
    const session = `shared-${crypto.randomUUID()}`;
    await say(store, alice, session, "alice's secret plan", "noted");
    await say(store, bob, session, "bob's note");
    const forBob = await load(store, bob, session, "alice's secret plan");
    assert.deepEqual(forBob.recentMessages.map((m) => m.content), ["bob's note"]);
    assert.ok(forBob.semanticMatches.every((m) => !m.content.includes("alice")));
    const forAnonymous = await load(store, ANONYMOUS, session, "alice's secret plan");
    assert.deepEqual(forAnonymous.recentMessages, []);
    assert.deepEqual(forAnonymous.semanticMatches, []);
  });

  test(`${name}: a run's turn is its caller's: another caller storing a turn under that run id first does not stop it`, async () => {
    const store = await makeStore({ recentLimit: 10, matchThreshold: -1 });
    const [alice, mallory] = [user(), user()];
    const [session, runId] = [`run-${crypto.randomUUID()}`, crypto.randomUUID()];
    const turn = (caller: Caller, content: string) =>
      store.saveTurn({
        caller,
        sessionId: session,
        userMessage: { content, embedding: hashingVector(content), embeddingModel: MODEL },
        events: [],
        runId,
      });
    // Mallory learned the id of Alice's running run, and stores a turn under it first.
    await turn(mallory, "squatted");
    await turn(alice, "alice's own turn");
    await turn(alice, "alice's turn, stored a second time");
    const seen = await load(store, alice, session, "turn");
    assert.deepEqual(seen.recentMessages.map((m) => m.content), ["alice's own turn"]);
  });

  test(`${name}: callers without a user (API keys, anonymous) do not share sessions`, async () => {
    const store = await makeStore({ recentLimit: 10, matchThreshold: -1 });
    const [keyA, keyB]: Caller[] = [{ userId: null, owner: "key:a" }, {
      userId: null,
      owner: "key:b",
    }];
    const session = `shared-${crypto.randomUUID()}`;
    await say(store, keyA, session, "key A's private note");
    for (const other of [keyB, ANONYMOUS]) {
      const seen = await load(store, other, session, "key A's private note");
      assert.deepEqual([seen.recentMessages, seen.semanticMatches], [[], []], other.owner);
    }
    assert.equal((await load(store, keyA, session, "note")).recentMessages.length, 1);
  });

  test(`${name}: with scope "user", matches come from all of the user's sessions`, async () => {
    const store = await makeStore({ recentLimit: 10, matchThreshold: 0.2, scope: "user" });
    const alice = user();
    await say(
      store,
      alice,
      `a-${crypto.randomUUID()}`,
      "my favourite database is postgres with pgvector",
    );
    const { semanticMatches } = await load(
      store,
      alice,
      `b-${crypto.randomUUID()}`,
      "which database is my favourite?",
    );
    assert.equal(semanticMatches[0]?.content, "my favourite database is postgres with pgvector");
  });

  test(`${name}: a session's messages list oldest first, only the caller's, and sessions by prefix`, async () => {
    const store = await makeStore();
    const [alice, bob] = [user(), user()];
    const tag = crypto.randomUUID().slice(0, 8);
    await say(store, alice, `${tag}-a`, "first", "reply one");
    await say(store, alice, `${tag}-b`, "second");
    await say(store, alice, `${tag}-a`, "third");
    await say(store, bob, `${tag}-a`, "bob's own words");

    const messages = await store.listMessages(alice, `${tag}-a`, 100);
    assert.deepEqual(messages.map((m) => [m.role, m.content]), [
      ["user", "first"],
      ["assistant", "reply one"],
      ["user", "third"],
    ]);
    assert.deepEqual(messages[0].sessionId, `${tag}-a`);
    assert.deepEqual((await store.listMessages(alice, `${tag}-a`, 2)).map((m) => m.content), [
      "reply one",
      "third",
    ]);
    assert.deepEqual(await store.listMessages(alice, "no-such-session", 10), []);
    // Most recently used first; another caller's sessions never show.
    assert.deepEqual(await store.listSessions(alice, tag, 100), [`${tag}-a`, `${tag}-b`]);
    assert.deepEqual(await store.listSessions(alice, `${tag}-b`, 100), [`${tag}-b`]);
    assert.deepEqual(await store.listSessions(alice, tag, 1), [`${tag}-a`]);
    assert.deepEqual(await store.listSessions(bob, tag, 100), [`${tag}-a`]);
    // A prefix is text, not a pattern.
    assert.deepEqual(await store.listSessions(alice, "%", 100), []);
  });

  test(`${name}: messages by id are the caller's own, oldest first; unknown ids and others' are skipped`, async () => {
    const store = await makeStore();
    const [alice, bob] = [user(), user()];
    const keys: Caller[] = [{ userId: null, owner: "key:a" }, { userId: null, owner: "key:b" }];
    const session = `ids-${crypto.randomUUID()}`;
    await say(store, alice, session, "alice's first", "alice's reply");
    await say(store, bob, session, "bob's own words");
    await say(store, keys[0], session, "key A's note");
    const [first, reply] = await store.listMessages(alice, session, 10);
    const [bobs] = await store.listMessages(bob, session, 10);
    const [keyA] = await store.listMessages(keys[0], session, 10);
    const asked = [reply.id, bobs.id, keyA.id, crypto.randomUUID(), "not-a-uuid", first.id];

    const found = await store.messagesByIds(alice, asked);
    assert.deepEqual(found, [first, reply]);
    assert.deepEqual(found.map((m) => [m.role, m.content, m.sessionId]), [
      ["user", "alice's first", session],
      ["assistant", "alice's reply", session],
    ]);
    assert.deepEqual((await store.messagesByIds(bob, asked)).map((m) => m.content), [
      "bob's own words",
    ]);
    assert.deepEqual((await store.messagesByIds(keys[0], asked)).map((m) => m.content), [
      "key A's note",
    ]);
    for (const other of [keys[1], ANONYMOUS]) {
      assert.deepEqual(await store.messagesByIds(other, asked), [], other.owner);
    }
    assert.deepEqual(await store.messagesByIds(alice, []), []);
  });
}
