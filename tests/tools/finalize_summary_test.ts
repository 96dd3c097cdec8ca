import assert from "node:assert/strict";
import { ANONYMOUS, type StoredMessage } from "../../shared/ports.ts";
import { createFinalizeSummaryTool, offlineSummary } from "../../shared/tools/finalize_summary.ts";
import { createModelSummarizer } from "../../shared/tools/model_summary.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { ScriptedChatModel } from "../fakes/scripted_chat_model.ts";
import { loopRequest } from "../support/loop_fixture.ts";

const step = (tool: string, output: unknown, success = true, error?: string) => ({
  tool,
  input: {},
  output,
  success,
  durationMs: 1,
  ...(error ? { error } : {}),
});

const loop = {
  id: "a1b2c3d4",
  status: "initialized",
  loop_type: "build_plan",
  current_score: null,
  score_history: [],
  iteration: 0,
  threshold: 80,
  max_iterations: 5,
  created_at: "2026-11-25T00:00:00.000Z",
  updated_at: "2026-11-25T00:00:00.000Z",
};

Deno.test("the offline reply has one sentence per step, failures included, and no field dump", () => {
  const text = offlineSummary({
    message: "open a build plan loop and check the weather",
    mode: "general",
    results: [
      step("initialize_refinement_loop", loop),
      step("flaky_weather", null, false, "the upstream service timed out"),
    ],
  });
  assert.equal(
    text,
    "I started a build plan refinement loop with id a1b2c3d4: it completes at a score of 80 or more, within 5 iterations.\n" +
      "flaky_weather failed: the upstream service timed out",
  );
  assert.doesNotMatch(text, /created_at|score_history|…/);
});

Deno.test("a later round's offline reply leaves out the earlier rounds' replies", () => {
  const text = offlineSummary({
    message: "weather",
    mode: "general",
    results: [
      step("get_weather", { sky: "clear" }),
      step("finalize_summary", "get_weather returned sky clear."),
      step("get_weather", { sky: "rain" }),
    ],
  });
  assert.equal(text, "get_weather returned sky clear.\nget_weather returned sky rain.");
});

Deno.test("the offline reply of no steps and no notes says no tools were needed", () => {
  assert.equal(
    offlineSummary({ message: "hi", mode: "general", results: [] }),
    'No tools were needed for "hi".',
  );
});

Deno.test("the planner's notes follow the steps in the offline reply, as written", () => {
  const note = "None of my tools does that, so I did nothing. What I can do:\n- list your notes";
  assert.equal(
    offlineSummary({ message: "book me a taxi", mode: "general", results: [], instructions: note }),
    note,
  );
  const text = offlineSummary({
    message: "list loops",
    mode: "general",
    results: [step("list_active_loops", { loops: [] })],
    instructions: "Stress the newest.",
  });
  assert.equal(text, "You have no refinement loops yet.\nStress the newest.");
});

const earlier = (id: string, content: string, role: StoredMessage["role"], at: string) => ({
  id,
  sessionId: "s",
  role,
  content,
  createdAt: `2026-11-2${at}T10:00:00.000Z`,
});

async function reply(message: string, context: Record<string, unknown>): Promise<string> {
  return await createFinalizeSummaryTool().run({
    args: {},
    context,
    results: [],
    signal: new AbortController().signal,
    caller: ANONYMOUS,
    request: loopRequest(message),
  });
}

Deno.test("a question about what was said earlier brings back those messages, oldest first", async () => {
  const context = {
    recentMessages: [
      earlier("3", "Is the ramen in Osaka better than in Kyoto?", "user", "3"),
      earlier("4", "Ramen preferences vary by region.", "assistant", "3"),
    ],
    semanticMatches: [
      earlier("1", "My sister lives in Osaka", "user", "1"),
      earlier("2", "Book a hotel near the station", "user", "2"),
    ],
  };
  assert.equal(
    await reply("Remind me what I said about Osaka", context),
    'Earlier you wrote about Osaka:\n- "My sister lives in Osaka"\n' +
      '- "Is the ramen in Osaka better than in Kyoto?"',
  );
  assert.equal(
    await reply("what did you tell me earlier regarding ramen?", context),
    'Earlier I wrote about ramen:\n- "Ramen preferences vary by region."',
  );
  assert.equal(
    await reply("Did I mention anything about Lima?", context),
    "I found nothing you wrote earlier about Lima.",
  );
});

Deno.test("when the model fails, the offline reply leaves out the planner's hints to the model", async () => {
  const model = new ScriptedChatModel("");
  const summarize = createModelSummarizer(model, { logger: new RecordingLogger() });
  const text = await summarize(
    {
      message: "list loops",
      mode: "general",
      results: [step("list_active_loops", { loops: [] })],
      instructions: "Be brief and upbeat.",
    },
    new AbortController().signal,
  );
  assert.equal(text, "You have no refinement loops yet.");
  assert.match(JSON.stringify(model.requests[0].messages), /Be brief and upbeat/);
});

Deno.test("a question about the memory lists it whole, or says it is empty, offline and to a model", async () => {
  const memory = { facts: ["I keep bees", "my van is green", "I fly on Tuesdays"] };
  const listed = await reply("hey, what do you know about me?", { workingMemory: memory });
  assert.equal(
    listed,
    'You asked me to remember:\n- "I keep bees"\n- "my van is green"\n- "I fly on Tuesdays"',
  );
  // A question about one thing gets the items that hold its words, not the whole memory.
  assert.equal(
    await reply("do you remember what colour my van is?", { workingMemory: memory }),
    'You asked me to remember: "my van is green".',
  );
  assert.match(
    await reply("what's in your memory?", { workingMemory: {} }),
    /^I remember nothing about you yet\./,
  );
  // Earlier statements are not quoted beside the listing ("know" is no topic).
  const said = [earlier("1", "I know Rust quite well", "user", "1")];
  assert.equal(
    await reply("what do you know about me?", { workingMemory: memory, recentMessages: said }),
    listed,
  );
  // The last ten at most, after how many earlier ones there are.
  const many = { facts: Array.from({ length: 13 }, (_, i) => `I own ${i + 1} kites`) };
  const lines = (await reply("what do you know about me?", { workingMemory: many })).split("\n");
  assert.equal(lines.length, 12);
  assert.equal(lines[0], "You asked me to remember (the last 10 of 13):");
  assert.equal(lines[1], "- and 3 earlier: ask about one by its words to see it");
  assert.equal(lines[2], '- "I own 4 kites"');
  assert.equal(lines[11], '- "I own 13 kites"');
  const model = new ScriptedChatModel("Nothing yet.");
  const summarize = createModelSummarizer(model, { logger: new RecordingLogger() });
  await summarize(
    { message: "what have you stored?", mode: "general", results: [], listsMemory: true },
    new AbortController().signal,
  );
  assert.match(JSON.stringify(model.requests[0].messages), /working memory is empty/);
});

Deno.test("a tool's sentence about several of its outputs follows their own, only for two or more", () => {
  const read = (place: string) => ({
    tool: "read_place",
    input: { place },
    success: true,
    durationMs: 1,
    output: { summary: `Read ${place}.`, place },
  });
  const together = (tool: string) =>
    tool === "read_place"
      ? (outputs: unknown[]) =>
        `Read ${(outputs as { place: string }[]).map((output) => output.place).join(" and ")}.`
      : undefined;
  const base = { message: "m", mode: "general", together };
  assert.equal(
    offlineSummary({ ...base, results: [read("Oslo"), read("Lima")] }),
    "Read Oslo.\nRead Lima.\nRead Oslo and Lima.",
  );
  assert.equal(offlineSummary({ ...base, results: [read("Oslo")] }), "Read Oslo.");
  // A failed step is no output to speak of.
  assert.equal(
    offlineSummary({
      ...base,
      results: [read("Oslo"), {
        tool: "read_place",
        input: {},
        output: undefined,
        success: false,
        durationMs: 1,
        error: "no such place",
      }],
    }),
    "Read Oslo.\nread_place failed: no such place",
  );
});
