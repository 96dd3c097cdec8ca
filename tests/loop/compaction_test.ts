import assert from "node:assert/strict";
import fc from "fast-check";
import {
  compactSession,
  mostTokens,
  turnEnd,
  withSessionSummary,
} from "../../shared/loop/compaction.ts";
import { APPROXIMATE_COUNTER } from "../../shared/loop/usage.ts";
import { PROMPT_COUNTER } from "../../shared/adapters/openai/chat_tokens.ts";
import type { CompactionDeps } from "../../shared/loop/compaction.ts";
import {
  extractiveSummary,
  modelSessionSummarizer,
  type SessionSummaryInput,
} from "../../shared/loop/session_summarizer.ts";
import type { ChatRole } from "../../shared/contracts.ts";
import type { Caller, PlanInput } from "../../shared/ports.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { MemorySessionSummaryStore } from "../fakes/memory_session_summary_store.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { ScriptedChatModel } from "../fakes/scripted_chat_model.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest } from "../support/loop_fixture.ts";

const ALICE: Caller = { userId: null, owner: "key:alice" };
const BOB: Caller = { userId: null, owner: "key:bob" };

/** Stores `roles` as a session's messages, each a sentence naming its number. */
function seed(
  store: MemoryConversationStore,
  caller: Caller,
  sessionId: string,
  roles: ChatRole[],
) {
  for (const role of roles) {
    const n = store.rows.length;
    store.rows.push({
      id: crypto.randomUUID(),
      sessionId,
      role,
      content: `Message ${n} from the ${role}: the Lisbon budget is ${n * 10} euros for the trip.`,
      createdAt: new Date(0).toISOString(),
      owner: caller.owner,
      userId: caller.userId,
      seq: n,
    });
  }
}

/** Compaction over the fakes, recording what each summary was written from. */
function compaction(store: MemoryConversationStore, options: Partial<CompactionDeps["options"]>) {
  const inputs: SessionSummaryInput[] = [];
  const deps: CompactionDeps = {
    store: new MemorySessionSummaryStore(store),
    summarize: (input) => {
      inputs.push(input);
      return Promise.resolve(extractiveSummary(input));
    },
    options: { afterTokens: 100, summaryTokens: 200, keepRecent: 4, ...options },
  };
  return { deps, inputs, summaries: deps.store as MemorySessionSummaryStore };
}

const TURN: ChatRole[] = ["user", "assistant", "tool", "assistant"];

Deno.test("a summary ends at a turn's end: never between a tool call and its result", () => {
  const roles: ChatRole[] = [...TURN, ...TURN, "user", "assistant"];
  const history = roles.map((role) => ({ role }));
  assert.equal(turnEnd(history, 2), 4, "forward to the next user message");
  assert.equal(turnEnd(history, 4), 4, "already at one");
  assert.equal(turnEnd(history, 9), 8, "a turn that runs to the end: back before it");
  assert.equal(turnEnd([{ role: "assistant" }, { role: "tool" }], 1), 0);
});

Deno.test("older messages past the budget are summarised, stored, and the cut keeps turns whole", async () => {
  const store = new MemoryConversationStore();
  seed(store, ALICE, "s", [...TURN, ...TURN, ...TURN, ...TURN]);
  const { deps, inputs, summaries } = compaction(store, { keepRecent: 6 });
  const summary = await compactSession({ deps, caller: ALICE, sessionId: "s" });
  assert.ok(summary);
  // 16 messages, 6 recent: the cut at 10 falls inside the third turn, which is folded whole.
  assert.deepEqual(inputs[0].messages.map((m) => m.role), [...TURN, ...TURN, ...TURN]);
  assert.equal(summary.coveredMessages, 12);
  assert.equal(summary.coveredSeq, 11);
  assert.equal(summary.coveredRecentIds.length, 2, "two of the recent six are in the summary");
  assert.match(summary.summary, /^- user: Message 0 from the user/);
  assert.equal(summaries.summaries.size, 1, "stored");
  const again = await compactSession({ deps, caller: ALICE, sessionId: "s" });
  assert.equal(again?.version, 1);
  assert.equal(inputs.length, 1, "nothing new to fold in: no second summary");
});

Deno.test("under the budget nothing is summarised", async () => {
  const store = new MemoryConversationStore();
  seed(store, ALICE, "s", [...TURN, ...TURN]);
  const { deps, inputs } = compaction(store, { afterTokens: 10_000 });
  assert.equal(await compactSession({ deps, caller: ALICE, sessionId: "s" }), undefined);
  assert.equal(inputs.length, 0);
});

Deno.test("a session with fewer messages than the recent window reads no summary at all", async () => {
  const store = new MemoryConversationStore();
  const { deps, inputs } = compaction(store, { afterTokens: 1, keepRecent: 4 });
  const summaries = deps.store;
  let reads = 0;
  const counted: CompactionDeps = {
    ...deps,
    store: {
      load: (...args) => summaries.load(...args),
      loadState: (...args) => (reads++, summaries.loadState(...args)),
      history: (...args) => summaries.history(...args),
      save: (...args) => summaries.save(...args),
    },
  };
  const recent = (n: number) => ({
    recentMessages: Array.from({ length: n }, (_, i) => ({ id: String(i), role: "user" })),
  });
  const logger = new RecordingLogger();
  const options = { deps: counted, caller: ALICE, sessionId: "s", logger };
  assert.deepEqual(await withSessionSummary(recent(3), options), recent(3));
  assert.equal(reads, 0, "three messages, a window of four: nothing older");
  await withSessionSummary(recent(4), options);
  assert.equal(reads, 1, "a full window may have older messages behind it");
  assert.equal(inputs.length, 0);
});

Deno.test("older messages too short to reach the budget are not read at all", async () => {
  const store = new MemoryConversationStore();
  seed(store, ALICE, "s", [...TURN, ...TURN, ...TURN]); // 12 messages of about 70 bytes
  const { deps, inputs } = compaction(store, { keepRecent: 4, afterTokens: 1_000 });
  const summaries = deps.store;
  const calls: string[] = [];
  const counted: CompactionDeps = {
    ...deps,
    store: {
      load: (...args) => (calls.push("load"), summaries.load(...args)),
      loadState: (...args) => (calls.push("state"), summaries.loadState(...args)),
      history: (...args) => (calls.push("history"), summaries.history(...args)),
      save: (...args) => (calls.push("save"), summaries.save(...args)),
    },
  };
  const state = await summaries.loadState(ALICE, "s", 4);
  assert.equal(state.older.messages, 8);
  assert.ok(state.older.bytes > 8 * 60 && state.older.bytes < 8 * 90, String(state.older.bytes));
  assert.equal(await compactSession({ deps: counted, caller: ALICE, sessionId: "s" }), undefined);
  assert.deepEqual(calls, ["state"], "8 messages of ~70 bytes cannot count 1,000 tokens");
  // Past the bound, the history is read and counted as before.
  calls.length = 0;
  const low = { ...counted, options: { ...counted.options, afterTokens: 100 } };
  assert.ok(await compactSession({ deps: low, caller: ALICE, sessionId: "s" }));
  assert.deepEqual(calls, ["state", "history", "save", "load"]);
  assert.equal(inputs.length, 1);
});

Deno.test("the next compaction folds the new older messages into the previous summary", async () => {
  const store = new MemoryConversationStore();
  seed(store, ALICE, "s", [...TURN, ...TURN, ...TURN]);
  const { deps, inputs } = compaction(store, { keepRecent: 4 });
  const first = await compactSession({ deps, caller: ALICE, sessionId: "s" });
  seed(store, ALICE, "s", [...TURN, ...TURN, ...TURN]);
  const second = await compactSession({ deps, caller: ALICE, sessionId: "s" });
  assert.equal(inputs[1].previous, first!.summary);
  assert.equal(inputs[1].messages[0].role, "user");
  assert.equal(second!.version, 2);
  assert.equal(second!.coveredMessages, 20);
});

Deno.test("a caller's session summary is theirs alone, even under the same session id", async () => {
  const store = new MemoryConversationStore();
  seed(store, ALICE, "same", [...TURN, ...TURN, ...TURN, ...TURN]);
  seed(store, BOB, "same", [...TURN]);
  const { deps } = compaction(store, {});
  assert.ok(await compactSession({ deps, caller: ALICE, sessionId: "same" }));
  assert.equal(await compactSession({ deps, caller: BOB, sessionId: "same" }), undefined);
  const planner = new ScriptedPlanner([]);
  const { runner } = buildLoop({ planner, store, compaction: deps });
  await runner.run(loopRequest("hello", { sessionId: "same" }), { caller: BOB });
  assert.equal(planner.calls[0].context.sessionSummary, undefined);
  await runner.run(loopRequest("hello", { sessionId: "same" }), { caller: ALICE });
  assert.ok(planner.calls[1].context.sessionSummary);
});

Deno.test("the planner sees the summary and the recent messages, none of them twice", async () => {
  const store = new MemoryConversationStore({ recentLimit: 6 });
  seed(store, ALICE, "s", Array.from({ length: 50 }, () => TURN).flat());
  const { deps } = compaction(store, { keepRecent: 6 });
  const planner = new ScriptedPlanner([]);
  const { runner } = buildLoop({ planner, store, compaction: deps });
  await runner.run(loopRequest("What was the budget?", { sessionId: "s" }), { caller: ALICE });
  const { context } = planner.calls[0] as PlanInput;
  const summary = context.sessionSummary as { summary: string; coveredMessages: number };
  assert.equal(summary.coveredMessages, 196);
  const recent = context.recentMessages as { role: string; content: string }[];
  assert.deepEqual(recent.map((m) => m.role), TURN, "the last turn, whole");
  assert.ok(summary.summary.length <= 200 * 4);
});

Deno.test("the chat model writes the summary; when it fails, the extractive one stands in", async () => {
  const logger = new RecordingLogger();
  const model = new ScriptedChatModel("- The user plans a Lisbon trip on 500 euros.");
  const summarize = modelSessionSummarizer(model, { logger });
  const input = {
    messages: [{ role: "user" as const, content: "I go to Lisbon with 500 euros." }],
    maxTokens: 100,
  };
  assert.equal(await summarize(input, {}), "- The user plans a Lisbon trip on 500 euros.");
  assert.match(model.requests[0].messages[1].content, /untrusted-data-[0-9a-f]{16}/);
  const failing = { model: "m", complete: () => Promise.reject(new Error("down")) };
  const offline = await modelSessionSummarizer(failing, { logger })(input, {});
  assert.equal(offline, "- user: I go to Lisbon with 500 euros.");
  assert.ok(logger.entries.some((entry) => /offline/.test(entry.message)));
});

Deno.test("the extractive summary says each thing once, keeps changed figures, and stays in budget", () => {
  const said = (role: "user" | "assistant", content: string) => ({ role, content });
  const summary = extractiveSummary({
    messages: [
      said("user", "The Porto budget is 12,000 euros."),
      said("assistant", "Noted: the Porto budget is 12,000 euros."),
      said("user", "The Porto budget is 12,000 euros."),
      said("user", "Correction: the Porto budget is 15,000 euros."),
      said("user", "ok thanks"),
    ],
    maxTokens: 28,
  });
  assert.deepEqual(summary.split("\n"), [
    "- user: The Porto budget is 12,000 euros.",
    "- user: Correction: the Porto budget is 15,000 euros.",
  ]);
});

Deno.test("the bound on older tokens is never below what a counter counts", async () => {
  const encoder = new TextEncoder();
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.string({ unit: "grapheme", minLength: 1 }), { minLength: 1 }),
      async (texts) => {
        const size = {
          messages: texts.length,
          bytes: texts.reduce((n, text) => n + encoder.encode(text).length, 0),
        };
        const joined = texts.join("\n");
        assert.ok(await APPROXIMATE_COUNTER.countText(joined) <= mostTokens(size));
        assert.ok(await PROMPT_COUNTER.countText(joined) <= mostTokens(size, PROMPT_COUNTER));
      },
    ),
    { numRuns: 200 },
  );
});

/** Waits until `ready` settles or the event loop has turned ten times, whichever is first. */
async function untilOrTenTurns(ready: Promise<void>): Promise<void> {
  const turns = (async () => {
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  })();
  await Promise.race([ready, turns]);
}

Deno.test("a session seen long has its state read while the context loads; a new one after", async () => {
  const store = new MemoryConversationStore({ recentLimit: 4 });
  seed(store, ALICE, "s", [...TURN, ...TURN, ...TURN, ...TURN]);
  const { deps } = compaction(store, { keepRecent: 4 });
  const order: string[] = [];
  let stateBegun: () => void = () => {};
  const summaries = deps.store;
  const loadState = summaries.loadState.bind(summaries);
  summaries.loadState = (...args) => {
    order.push("state read");
    stateBegun();
    return loadState(...args);
  };
  const loadContext = store.loadContext.bind(store);
  store.loadContext = async (input) => {
    const begun = new Promise<void>((resolve) => stateBegun = resolve);
    await untilOrTenTurns(begun);
    order.push("context loaded");
    return await loadContext(input);
  };
  const planner = new ScriptedPlanner([]);
  const { runner } = buildLoop({ planner, store, compaction: deps });
  const ask = (caller: Caller) =>
    runner.run(loopRequest("What was the budget?", { sessionId: "s" }), { caller });
  await ask(ALICE);
  assert.deepEqual(order, ["context loaded", "state read"], "not known long yet");
  assert.ok(planner.calls[0].context.sessionSummary, "and the summary is there");
  order.length = 0;
  await ask(ALICE);
  assert.deepEqual(order, ["state read", "context loaded"], "known long now: at once");
  assert.ok(planner.calls[1].context.sessionSummary);
  order.length = 0;
  await ask(BOB);
  assert.deepEqual(order, ["context loaded"], "another caller's session of that id: new, short");
});

Deno.test("a state read that fails matters only to a session long enough to need it", async () => {
  for (const roles of [["user", "assistant"], [...TURN, ...TURN, ...TURN]] as ChatRole[][]) {
    // Each case asked twice: the second time a long session's state is read early.
    const store = new MemoryConversationStore({ recentLimit: 4 });
    seed(store, ALICE, "s", roles);
    const { deps } = compaction(store, { keepRecent: 4 });
    deps.store.loadState = () => Promise.reject(new Error("the state's connection dropped"));
    const planner = new ScriptedPlanner([]);
    const { runner, logger } = buildLoop({ planner, store, compaction: deps });
    const response = await runner.run(loopRequest("hello", { sessionId: "s" }), { caller: ALICE });
    assert.equal(response.success, true);
    const warned = logger.entries.filter((entry) => entry.level === "warn").map((e) => e.message);
    if (roles.length < 4) {
      assert.deepEqual(warned, [], "two messages, a window of four: not needed");
    } else {assert.deepEqual(warned, [
        "could not compact the session; the planner sees the recent messages only",
      ]);}
  }
});
