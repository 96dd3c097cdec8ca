import assert from "node:assert/strict";
import { clipWords, stepSentence } from "../../shared/tools/step_sentences.ts";

const ok = (tool: string, output: unknown) => ({
  tool,
  input: {},
  output,
  success: true,
  durationMs: 1,
});

const loop = (fields: Record<string, unknown> = {}) => ({
  id: "0badcafe",
  status: "refine",
  loop_type: "spec",
  current_score: 70,
  score_history: [61, 70],
  iteration: 2,
  threshold: 85,
  max_iterations: 5,
  created_at: "2026-11-25T00:00:00.000Z",
  updated_at: "2026-11-25T00:00:00.000Z",
  ...fields,
});

Deno.test("each refinement tool's step reads as a sentence", () => {
  assert.equal(
    stepSentence(ok("decide_loop_next_action", loop())),
    "Loop 0badcafe scored 70, below its threshold of 85: refine it and score it again (iteration 2 of 5).",
  );
  assert.equal(
    stepSentence(ok("decide_loop_next_action", loop({ status: "completed", current_score: 91 }))),
    "Loop 0badcafe scored 91, reaching its threshold of 85: it is completed.",
  );
  assert.match(
    stepSentence(ok("decide_loop_next_action", loop({ status: "user_input" }))),
    /needs your input: it reached its iteration limit or stopped improving\.$/,
  );
  assert.equal(
    stepSentence(ok("get_loop_status", loop())),
    "Loop 0badcafe (spec) is being refined, last score 70 (85 needed; scores so far 61, 70), iteration 2 of 5.",
  );
});

Deno.test("a loop completed says how many iterations it used (none when its first score passed)", () => {
  const done = loop({ status: "completed", current_score: 92, score_history: [92], iteration: 0 });
  assert.equal(
    stepSentence(ok("get_loop_status", done)),
    "Loop 0badcafe (spec) is completed, last score 92 (85 needed), 0 of 5 iterations used.",
  );
});

Deno.test("a listing of loops has one line per loop; an empty one says there are none", () => {
  const fresh = loop({
    id: "12345678",
    status: "initialized",
    current_score: null,
    score_history: [],
    iteration: 0,
  });
  assert.equal(
    stepSentence(ok("list_active_loops", { loops: [loop(), fresh] })),
    "You have 2 refinement loops, newest first:\n" +
      "- 0badcafe (spec) is being refined, last score 70 (85 needed; scores so far 61, 70), iteration 2 of 5\n" +
      "- 12345678 (spec) is new, not scored yet (85 needed), iteration 0 of 5",
  );
  assert.equal(
    stepSentence(ok("list_active_loops", { loops: [] })),
    "You have no refinement loops yet.",
  );
});

Deno.test("the memory tools' steps say what was kept, forgotten or deleted", () => {
  assert.equal(
    stepSentence(ok("remember", { remembered: "I cycle to work", changed: true, memory: {} })),
    'I will remember "I cycle to work" in your later conversations too.',
  );
  assert.equal(
    stepSentence(ok("remember", { remembered: "I cycle to work", changed: false, memory: {} })),
    'I already remembered "I cycle to work".',
  );
  assert.equal(
    stepSentence(ok("forget", { forgotten: ["I cycle to work"], memory: {} })),
    'I forgot "I cycle to work".',
  );
  assert.equal(
    stepSentence(ok("forget", { forgotten: [], memory: {} })),
    "Nothing I remember matched that, so I forgot nothing.",
  );
  assert.equal(
    stepSentence(ok("forget_session", { sessionId: "s", deleted: { messages: 4, runs: 2 } })),
    "I deleted this conversation for good: 4 messages and what was kept with them.",
  );
});

Deno.test("any other tool reads as its summary, its text, or what it returned", () => {
  assert.equal(
    stepSentence(ok("get_current_time", { iso: "x", summary: "In Lima it is noon." })),
    "In Lima it is noon.",
  );
  assert.equal(stepSentence(ok("echo", "the echo said hi")), "echo: the echo said hi");
  assert.equal(
    stepSentence(ok("get_weather", { city: "Oslo", rain_expected: true, temperature: -3 })),
    "get_weather returned city Oslo, rain expected yes, temperature -3.",
  );
  assert.equal(stepSentence(ok("ping", null)), "ping ran and returned nothing.");
  assert.equal(stepSentence(ok("count", 12)), "count returned 12.");
});

Deno.test("a tool's list of records reads as a listing, ten lines at most, then how many more", () => {
  const notes = Array.from({ length: 13 }, (_, i) => ({ id: `n${i + 1}`, body: `note ${i + 1}` }));
  const text = stepSentence(ok("list_my_notes", { total: 13, notes }));
  const lines = text.split("\n");
  assert.equal(lines[0], "list_my_notes returned total 13, and 13 notes:");
  assert.equal(lines[1], "- n1: body note 1");
  assert.equal(lines.length, 12);
  assert.equal(lines.at(-1), "- and 3 more");
  assert.equal(
    stepSentence(ok("search_docs", [{ title: "Setup" }, { title: "Deploy", pages: 4 }])),
    "search_docs returned 2 items:\n- Setup\n- Deploy: pages 4",
  );
});

Deno.test("long texts are cut at a word, never inside one", () => {
  const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
  const text = stepSentence(ok("fetch_page", long));
  assert.ok(text.length < 620, `${text.length}`);
  const [kept] = text.replace(/^fetch_page: /, "").split(" …");
  assert.ok(long.startsWith(`${kept} `), "ends on a whole word");
  assert.equal(clipWords("short enough", 40), "short enough");
  assert.equal(clipWords("one two three four", 9), "one two …");
  assert.equal(clipWords("x".repeat(50), 10), `${"x".repeat(10)} …`);
});
