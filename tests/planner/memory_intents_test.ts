import assert from "node:assert/strict";
import { HeuristicPlanner } from "../../shared/planner/heuristic_planner.ts";
import { memoryIntent } from "../../shared/planner/memory_intents.ts";
import type { PlannerTool } from "../../shared/ports.ts";
import { loopRequest } from "../support/loop_fixture.ts";

const tool = (name: string): PlannerTool => ({ name, description: name, argsSchema: {} });
const ALL = ["remember", "forget", "forget_session", "finalize_summary"].map(tool);
const factOf = (message: string, previous?: string) =>
  memoryIntent(message, ALL, { previous })?.args.fact;

Deno.test("a fact to keep is found before or after the everyday ways of asking to keep it", () => {
  const cases: [string, string][] = [
    ["Remember that my favourite colour is teal.", "my favourite colour is teal"],
    ["please remember: I am vegetarian!", "I am vegetarian"],
    ["remember my dog is called Rex", "my dog is called Rex"],
    ["Could you remember that I work from Braga?", "I work from Braga"],
    ["I'd like you to keep in mind that I take the train", "I take the train"],
    ["Don’t forget that my flight leaves Friday", "my flight leaves Friday"],
    ["For future reference, I prefer metric units", "I prefer metric units"],
    ["Note that my manager is Rui.", "my manager is Rui"],
    ["My name is Ana, please remember that", "My name is Ana"],
    ["I am allergic to peanuts — keep that in mind", "I am allergic to peanuts"],
    ["My locker is 114. Remember this for later!", "My locker is 114"],
    ["I live in Braga. Save this, please.", "I live in Braga"],
    ["my standup is at 9:30, don't forget it", "my standup is at 9:30"],
  ];
  for (const [message, fact] of cases) assert.equal(factOf(message), fact, message);
});

Deno.test("a bare 'remember that' keeps the user's previous message", () => {
  assert.equal(
    factOf("please remember that", "My badge number is 5521"),
    "My badge number is 5521",
  );
  assert.equal(factOf("Remember this.", undefined), undefined, "nothing to keep");
});

Deno.test("deleting the current conversation is understood in everyday words", () => {
  for (
    const message of [
      "Please delete this conversation",
      "Forget this conversation, please",
      "erase our chat",
      "could you wipe the whole conversation now",
      "Clear this chat history please",
      "remove this thread for good",
      "forget everything we talked about",
      "Forget what we've discussed",
    ]
  ) {
    assert.deepEqual(memoryIntent(message, ALL), { tool: "forget_session", args: {} }, message);
  }
});

Deno.test("'forget …' and 'remove … from your memory' plan forget with what to forget", () => {
  const whatOf = (message: string) => memoryIntent(message, ALL)?.args.what;
  assert.equal(whatOf("Forget that my favourite colour is teal"), "my favourite colour is teal");
  assert.equal(whatOf("forget about my diet"), "my diet");
  assert.equal(whatOf("please stop remembering my address"), "my address");
  assert.equal(whatOf("remove my old phone number from your memory"), "my old phone number");
  assert.equal(whatOf("could you forget what I told you about my job"), "my job");
});

Deno.test("clearing the whole memory is understood in everyday words, apart from one item or this chat", () => {
  for (
    const message of [
      "clear my memory",
      "Please wipe your memory.",
      "reset your whole memory now",
      "erase everything you know about me",
      "forget everything you remember about me, please",
      "Forget all about me",
      "could you delete all of my working memory",
      "Can you reset your memories?",
      "wipe all memory",
    ]
  ) {
    assert.deepEqual(
      memoryIntent(message, ALL),
      { tool: "forget", args: { everything: true } },
      message,
    );
  }
  assert.equal(memoryIntent("forget my address", ALL)?.args.everything, undefined, "one item");
  assert.equal(memoryIntent("forget everything we discussed", ALL)?.tool, "forget_session");
  assert.equal(memoryIntent("clear my memory of the meeting", ALL)?.args.everything, undefined);
  assert.equal(memoryIntent("clear my memory", [tool("remember")]), undefined, "not offered");
});

Deno.test("reminders, questions, other conversations and 'never mind' plan no memory step", () => {
  for (
    const message of [
      "Remember to submit the expenses",
      "don't forget to call the plumber",
      "do you remember my name?",
      "remember when we went to Porto?",
      "delete the conversation about Tokyo",
      "Forget it",
      "never mind",
      "Save that file",
      "hello",
    ]
  ) {
    assert.equal(memoryIntent(message, ALL), undefined, message);
  }
  assert.equal(memoryIntent("remember that x", [tool("forget")]), undefined, "not offered");
  assert.equal(memoryIntent("forget this session", [tool("forget")]), undefined, "not offered");
});

Deno.test("the heuristic planner plans the memory step, then the reply", async () => {
  const plan = await new HeuristicPlanner().plan({
    request: loopRequest("I live in Lisbon, remember that"),
    context: {},
    tools: ALL,
    signal: new AbortController().signal,
  });
  assert.deepEqual(plan, [
    { tool: "remember", args: { fact: "I live in Lisbon" } },
    { tool: "finalize_summary", args: {} },
  ]);
});

Deno.test("a bare 'remember that' in a later turn keeps the previous stored user message", async () => {
  const plan = await new HeuristicPlanner().plan({
    request: loopRequest("Please remember that."),
    context: {
      recentMessages: [
        {
          id: "1",
          sessionId: "s",
          role: "user",
          content: "I speak Portuguese",
          createdAt: "2026-01-01",
        },
        { id: "2", sessionId: "s", role: "assistant", content: "Noted.", createdAt: "2026-01-02" },
      ],
    },
    tools: ALL,
    signal: new AbortController().signal,
  });
  assert.deepEqual(plan[0], { tool: "remember", args: { fact: "I speak Portuguese" } });
});
