import assert from "node:assert/strict";
import { createFinalizeSummaryTool, offlineSummary } from "../../shared/tools/finalize_summary.ts";
import { recallMemory, recallQuestion, recallStatements } from "../../shared/tools/recall.ts";
import { ANONYMOUS, type StoredMessage } from "../../shared/ports.ts";
import { loopRequest } from "../support/loop_fixture.ts";

const said = (id: string, content: string, role: StoredMessage["role"] = "user") => ({
  id,
  sessionId: "s",
  role,
  content,
  createdAt: "2026-11-25T00:00:00.000Z",
});

Deno.test("recall finds the user's earlier statement that answers the question, not earlier questions or replies", () => {
  const context = {
    recentMessages: [
      said("1", "What is my favourite colour?"),
      said("2", "Your favourite colour is on record.", "assistant"),
      said("3", "I bought a new bike today"),
    ],
    semanticMatches: [{ ...said("4", "My favourite colour is teal"), similarity: 0.6 }],
  };
  assert.deepEqual(
    recallStatements("what is my favourite colour?", context).map((m) => m.content),
    ["My favourite colour is teal"],
  );
  assert.deepEqual(recallStatements("tell me a joke", context), []);
  assert.deepEqual(recallStatements("colour?", { recentMessages: "not messages" }), []);
});

Deno.test("the offline reply quotes what was recalled instead of saying no tools were needed", () => {
  const text = offlineSummary({
    message: "what is my favourite colour?",
    mode: "general",
    results: [],
    recalled: [said("4", "My favourite colour is teal")],
  });
  assert.equal(text, 'Earlier you said: "My favourite colour is teal".');
});

Deno.test("finalize_summary reads the recalled messages from the loop context", async () => {
  const tool = createFinalizeSummaryTool();
  const output = await tool.run({
    args: {},
    context: { recentMessages: [said("9", "My favourite colour is teal")], semanticMatches: [] },
    results: [],
    signal: new AbortController().signal,
    caller: ANONYMOUS,
    request: loopRequest("What's my favourite colour?"),
  });
  assert.match(output, /teal/);
});

Deno.test("recall finds what working memory holds about the question, and the reply says so", () => {
  const context = {
    workingMemory: { facts: ["my favourite colour is teal", "I live in Lisbon"] },
    recentMessages: [said("1", "Remember that my favourite colour is teal")],
  };
  assert.deepEqual(recallMemory("what is my favourite colour?", context), [
    "my favourite colour is teal",
  ]);
  assert.deepEqual(recallMemory("my favourite colour is blue", context), [], "not a question");
  assert.deepEqual(recallMemory("what?", { workingMemory: "not a document" }), []);
  const text = offlineSummary({
    message: "what is my favourite colour?",
    mode: "general",
    results: [],
    remembered: ["my favourite colour is teal"],
  });
  assert.equal(text, 'You asked me to remember: "my favourite colour is teal".');
});

Deno.test("a question with apostrophes finds its answer: the lone letters they leave are not words to match", () => {
  const context = {
    workingMemory: { facts: ["my cat is called Miso", "I work at the harbour"] },
    recentMessages: [said("1", "Our flat's heating broke on Monday")],
  };
  assert.deepEqual(recallMemory("what's my cat's name?", context), ["my cat is called Miso"]);
  assert.deepEqual(
    recallStatements("what's wrong with the flat's heating?", context).map((m) => m.content),
    ["Our flat's heating broke on Monday"],
  );
  assert.deepEqual(recallMemory("where's the station?", context), [], "nothing on the station");
});

Deno.test("the offline reply quotes earlier statements only when no step answered", () => {
  const recalled = [said("4", "My favourite colour is teal")];
  const answered = offlineSummary({
    message: "what do my colour notes say?",
    mode: "general",
    results: [{
      tool: "read_colour_notes",
      input: {},
      success: true,
      output: { summary: "Your colour notes say teal." },
      durationMs: 1,
    }],
    recalled,
  });
  assert.equal(answered, "Your colour notes say teal.");
  const unanswered = offlineSummary({ message: "colour?", mode: "general", results: [], recalled });
  assert.equal(unanswered, 'Earlier you said: "My favourite colour is teal".');
});

Deno.test("a recall question's topic is what follows 'about', unless it only says when", () => {
  const topicOf = (question: string) => {
    const asked = recallQuestion(question);
    assert.ok(asked, question);
    return { topic: asked.topic, words: asked.words };
  };
  // Words that elsewhere ask ("writing", "sharing") are a topic after "about".
  assert.deepEqual(topicOf("what did I tell you about sharing?"), {
    topic: "sharing",
    words: ["sharing"],
  });
  // What says when or asks for a yes after the topic is no part of it.
  assert.deepEqual(topicOf("what did we say about my garden earlier?"), {
    topic: "my garden",
    words: ["garden"],
  });
  assert.deepEqual(topicOf("we were just talking about the budget in this chat, no?"), {
    topic: "the budget",
    words: ["budget"],
  });
  // Only a time: no topic, the latest messages.
  for (
    const question of [
      "what have we been talking about so far?",
      "what did we discuss about in this chat?",
      "what did I say about until now",
    ]
  ) assert.deepEqual(topicOf(question), { topic: undefined, words: [] }, question);
});
