/**
 * A run's row names the messages its planner recalled and keeps none of
 * their text (it stays in chat_messages): a run approved, or continued in the
 * background after its deadline, goes on with the text read again for its
 * caller, without a message deleted while it waited; a replayed result reads
 * it the same way; a base an earlier release stored with the text is used as
 * it is (tests/runs/fixtures/run_base_full_text.json, written by that release).
 */
import assert from "node:assert/strict";
import { createParser } from "eventsource-parser";
import { z } from "zod";
import type { App } from "../../shared/app/app.ts";
import type { RuntimeInfo } from "../../shared/app/runtime.ts";
import type { TurnBase } from "../../shared/loop/turn_state.ts";
import { ANONYMOUS, type StoredMessage } from "../../shared/ports.ts";
import { recalledByReference, withRecalledText } from "../../shared/runs/recalled_messages.ts";
import { SqlConversationStore } from "../../shared/store/sql_conversation_store.ts";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { mcpApp } from "../support/mcp_fixture.ts";
import { sharedPglite } from "../support/pglite.ts";
import { ALICE, runsLoop } from "../support/runs_fixture.ts";

/** The texts of the loop context's recent messages and matches (long ones by their start and length). */
type Seen = { recent: string[]; matches: string[] };

function textsOf(context: Record<string, unknown>): Seen {
  const texts = (key: string) =>
    ((context[key] ?? []) as StoredMessage[]).map((m) => digest(m.content));
  return { recent: texts("recentMessages"), matches: texts("semanticMatches") };
}

function digest(text: string | undefined): string {
  if (text === undefined) return "(no text)";
  return text.length <= 200 ? text : `${text.slice(0, 120)}… (${text.length} characters)`;
}

/** `erase_note`, destructive (it waits for approval), noting the context it ran with. */
function erasingTool(seen: Seen[], { holdFirst = false } = {}) {
  return defineTool({
    name: "erase_note",
    description: "Erases a note",
    argsSchema: z.object({ note: z.string() }),
    annotations: { destructiveHint: !holdFirst, readOnlyHint: false },
    run: ({ args, context, signal }) => {
      seen.push(textsOf(context));
      // The first call holds until the deadline stops it: the run pauses.
      if (holdFirst && seen.length === 1) {
        return new Promise((_, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason), { once: true })
        );
      }
      return { erased: args.note };
    },
  });
}

/**
 * A session of five messages, its oldest long and distinctive: with three
 * recent ones loaded, the oldest is recalled as a match.
 */
async function session(sessionId: string) {
  const marker = `lighthouse-ledger-${crypto.randomUUID()}`;
  const texts = [
    `The keeper's log says the lamp was relit on the ninth of March. ${marker} `.repeat(400),
    "Noted: relit on 9 March.",
    "Our invoice for the lamp oil was numbered 7 and paid in April.",
    "Invoice 7, paid in April.",
    "Please forget the old keeper's address when you tidy up.",
  ];
  const store = new SqlConversationStore(await sharedPglite());
  for (const [content, reply] of [[texts[0], texts[1]], [texts[2], texts[3]], [texts[4]]]) {
    await store.saveTurn({
      caller: ANONYMOUS,
      sessionId,
      userMessage: { content, embedding: hashingVector(content), embeddingModel: "hashing-v1" },
      assistantMessage: reply === undefined ? undefined : { content: reply },
      events: [],
    });
  }
  return { marker, texts: texts.map(digest) };
}

const PLAN = [
  { tool: "erase_note", args: { note: "the keeper's address" } },
  { tool: "finalize_summary", args: {} },
];
const QUESTION = "When was the lamp relit? And erase the keeper's address";
/**
 * Three recent messages; compaction off, so the long message is not folded
 * into a session summary (a summary the context carries as it is).
 */
const MEMORY = { memory: { recentLimit: 3 }, compaction: { afterTokens: 0 } };

async function storedBase(runId: string): Promise<string> {
  const sql = await sharedPglite();
  const [row] = await sql.query<{ base: string }>(
    "select base::text as base from public.mcp_runs where id = $1",
    [runId],
  );
  return row.base;
}

/** The data of the last `result` event a follower of the run's events gets. */
async function replayedResult(app: App, runId: string) {
  const res = await app.fetch(new Request(`http://localhost/mcp-loop/runs/${runId}/events`));
  const results: { data: { context: Record<string, unknown> } }[] = [];
  const parser = createParser({
    onEvent: (e) => e.event === "result" && results.push(JSON.parse(e.data)),
  });
  parser.feed(await res.text());
  return results.at(-1)!.data;
}

Deno.test("a run's row names its recalled messages without their text; approved, it goes on with the text, less a message deleted while it waited", async () => {
  const seen: Seen[] = [];
  const app = await mcpApp({}, {
    tools: [erasingTool(seen)],
    planner: new ScriptedPlanner(PLAN),
  }, MEMORY);
  try {
    const request = loopRequest(QUESTION);
    const { marker, texts } = await session(request.sessionId);
    const waiting = await app.run(request);
    assert.equal(waiting.data.stopReason, "approval_required");
    const runId = waiting.data.runId!;
    // The request that loaded the context answers with all of it.
    assert.deepEqual(textsOf(waiting.data.context), {
      recent: texts.slice(2),
      matches: [texts[0]],
    });

    const base = await storedBase(runId);
    assert.ok(!base.includes(marker), "the long message's text is not in the run's row");
    for (const text of texts.slice(1)) assert.ok(!base.includes(text), text);
    const named = JSON.parse(base).context as Record<string, StoredMessage[]>;
    const ids = [...named.recentMessages, ...named.semanticMatches].map((m) => m.id);
    assert.equal(new Set(ids).size, 4, "the row names the four recalled messages");
    assert.ok(base.length < 2_000, `${base.length} bytes of base`);

    // The user deletes one of the recalled messages while the run waits.
    const gone = named.recentMessages[2].id;
    await (await sharedPglite()).query("delete from public.chat_messages where id = $1", [gone]);
    const done = await app.runner.resume(runId, {
      approvals: [{ id: waiting.data.pendingApprovals![0].id, approved: true }],
    });
    assert.equal(done.data.stopReason, "finalized");
    const after = { recent: texts.slice(2, 4), matches: [texts[0]] };
    assert.deepEqual(seen, [after], "the approved call ran with the recalled text");
    assert.deepEqual(textsOf(done.data.context), after);
    assert.equal(await storedBase(runId), base, "going on does not write the text back");
    assert.deepEqual(textsOf((await replayedResult(app, runId)).context), after);
  } finally {
    await app.close();
  }
});

Deno.test("a run paused at its deadline goes on in the background with its recalled messages' text", async () => {
  const seen: Seen[] = [];
  const background: Promise<unknown>[] = [];
  const runtime: RuntimeInfo = { kind: "local", keepAlive: (work) => background.push(work) };
  const app = await mcpApp({ MCP_LOOP_DEADLINE_MS: "1500" }, {
    tools: [erasingTool(seen, { holdFirst: true })],
    // The first call holds until the deadline fails it; the second runs in the continuation.
    planner: new ScriptedPlanner([
      { tool: "erase_note", args: { note: "the keeper's address" } },
      { tool: "erase_note", args: { note: "the keeper's name" } },
      { tool: "finalize_summary", args: {} },
    ]),
    runtime,
  }, { ...MEMORY, runs: { backgroundContinuations: 1 } });
  try {
    const request = loopRequest(QUESTION);
    const { marker, texts } = await session(request.sessionId);
    const paused = await app.run(request);
    assert.equal(paused.data.stopReason, "deadline");
    assert.ok(!(await storedBase(paused.data.runId!)).includes(marker));
    await Promise.all(background);
    const all = { recent: texts.slice(2), matches: [texts[0]] };
    assert.deepEqual(seen, [all, all], "the first try, then the background continuation's");
    const [row] = await (await sharedPglite()).query<{ status: string }>(
      "select status from public.mcp_runs where id = $1",
      [paused.data.runId],
    );
    assert.equal(row.status, "completed");
  } finally {
    await app.close();
  }
});

/** The base column an earlier release stored: the recalled messages with their text. */
function fullTextFixture(): Pick<TurnBase, "context" | "message"> {
  return JSON.parse(
    Deno.readTextFileSync(new URL("./fixtures/run_base_full_text.json", import.meta.url)),
  );
}

Deno.test("a run an earlier release stored with its recalled messages' text goes on with that text", async () => {
  const seen: Seen[] = [];
  const { runner, runStore, store } = runsLoop({
    planner: new ScriptedPlanner(PLAN),
    tools: [erasingTool(seen)],
  });
  const waiting = await runner.run(loopRequest(QUESTION), { caller: ALICE });
  const stored = runStore.runs.get(waiting.data.runId!)!;
  const old = fullTextFixture();
  stored.record = { ...stored.record, base: { ...stored.record.base!, ...old } };
  const done = await runner.resume(waiting.data.runId!, {
    caller: ALICE,
    approvals: [{ id: waiting.data.pendingApprovals![0].id, approved: true }],
  });
  assert.equal(done.data.stopReason, "finalized");
  // None of its messages is in this store: the text is the base's own.
  assert.equal(store.rows.length, 2, "only this run's turn is stored");
  assert.deepEqual(seen, [textsOf(old.context)]);
  assert.equal(textsOf(old.context).recent.length, 3);
  assert.deepEqual(done.data.context.recentMessages, old.context.recentMessages);
});

Deno.test("by reference: the stored base keeps all but the text; read back, references get their text and the missing are left out", async () => {
  const message = (id: string, content: string): StoredMessage => ({
    id,
    sessionId: "s",
    role: "user",
    content,
    createdAt: "2026-11-27T20:03:08.589Z",
  });
  const match = {
    ...message("m1", "matched text"),
    similarity: 0.5,
    foundBy: ["vector"],
    score: 1,
  };
  const base: TurnBase = {
    context: {
      recentMessages: [message("r1", "first"), message("r2", "second")],
      semanticMatches: [match],
      workingMemory: { facts: ["kept"] },
      mode: "general",
    },
    message: "hello",
    embedding: [1, 0],
    embeddingModel: "hashing-v1",
  };
  const before = structuredClone(base);
  const stored = recalledByReference(base);
  assert.deepEqual(base, before, "the running turn's base is left as it is");
  const ref = ({ content: _text, ...rest }: StoredMessage) => rest;
  assert.deepEqual(stored.context, {
    ...base.context,
    recentMessages: [message("r1", "first"), message("r2", "second")].map(ref),
    semanticMatches: [ref(match)],
  });
  assert.equal(stored.message, base.message);

  const asked: string[][] = [];
  const rows = [message("m1", "matched text"), message("r2", "second")];
  const read = await withRecalledText(stored, {
    caller: ALICE,
    store: {
      messagesByIds: (_caller, ids) => {
        asked.push([...ids]);
        return Promise.resolve(rows.filter((row) => ids.includes(row.id)));
      },
    },
  });
  assert.deepEqual(asked, [["r1", "r2", "m1"]]);
  assert.deepEqual(read.context.recentMessages, [message("r2", "second")], "r1 is gone");
  assert.deepEqual(read.context.semanticMatches, [match]);

  // A base holding the text (an earlier release's) is not read again.
  const unread = await withRecalledText(base, {
    caller: ALICE,
    store: { messagesByIds: () => Promise.reject(new Error("not to be asked")) },
  });
  assert.equal(unread, base);
});
