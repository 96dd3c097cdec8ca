/**
 * Wordings of classes a held-out probe found (probe 17), tested in wordings
 * of our own. First a wrong write found beside it: "I want to remember this"
 * kept the fact "I want to". Then: a fact kept by an order after it ("pls
 * don't forget", "jot that down", "keep that on file", "please to remember
 * this"); the memory dumped, cleared or a fact scratched in other words; a
 * score of a "pass", "we landed on", "quality maybe"; a loop's state asked by
 * its place ("the second of the three") or as an update; the chat nuked or
 * scrubbed "from this session"; two places compared in other words; "oi",
 * "ttyl", "huh?", "what's the point of you".
 */
import assert from "node:assert/strict";
import {
  assertKept,
  assertRepliesOnly,
  loopIdOf,
  offlineChats,
  score,
  steps,
  time,
} from "../support/offline_chats.ts";
import { scoreSaid } from "../../shared/planner/score_said.ts";

Deno.test("a wish to remember is no fact; a fact kept by an order after it", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("orders");
    for (const wish of ["I'd love to remember this", "we need to remember that"]) {
      assert.deepEqual(steps(await say(wish)), [], wish);
    }
    const kept: [string, string][] = [
      ["heads up, I'm diabetic — hold onto that", "I'm diabetic"],
      ["my nephew is called Rui, pls don't forget", "my nephew is called Rui"],
      ["note for later: I take the 7:40 train", "I take the 7:40 train"],
      ["started a pottery class! jot that down for me", "started a pottery class"],
      ["i prefer aisle seats, pls keep that", "i prefer aisle seats"],
      ["my blood type is O+, keep that on file", "my blood type is O+"],
      ["I am vegan since 2019, please to remember this", "I am vegan since 2019"],
    ];
    await assertKept(say, kept);
    const dumped = await say("dump out whatever you've noted on me");
    assert.match(dumped.summaryMessage!, /"i prefer aisle seats"/);
    assert.deepEqual(steps(await say("scratch my train from your notes")), [
      ["forget", { what: "train" }],
    ]);
    assert.deepEqual(steps(await say("clear out all the stuff you've saved on me, all of it")), [
      ["forget", { everything: true }],
    ]);
  } finally {
    await loop.close();
  }
});

Deno.test("a pass's score, a score we landed on, a quality before a dash, a loop's score set", async () => {
  const cases: [string, number][] = [
    ["the third pass came out 64", 64],
    ["this pass got 71", 71],
    ["we landed on 58 this time", 58],
    ["builds fine, quality roughly 77 — record it", 77],
    ["set the spec loop's score at 45", 45],
  ];
  for (const [message, value] of cases) assert.equal(scoreSaid(message)?.score, value, message);
  for (const message of ["I came out at 9", "we landed on 5 islands", "the pass is 3 km away"]) {
    assert.equal(scoreSaid(message), undefined, message);
  }
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("pass");
    const spec = loopIdOf(await say("start a spec loop"));
    const plan = loopIdOf(await say("start a plan loop"));
    assert.deepEqual(steps(await say("set the spec loop's score at 45")), [score(spec, 45)]);
    assert.deepEqual(steps(await say("the plan loop's score: 52")), [score(plan, 52)]);
  } finally {
    await loop.close();
  }
});

Deno.test("a loop's state asked by its place, as an update, or yes or no", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("placed");
    const plan = loopIdOf(await say("start a plan loop"));
    const spec = loopIdOf(await say("start a spec loop"));
    await say("start a build code loop");
    const status = (id: string) => [["get_loop_status", { loop_id: id }]];
    assert.deepEqual(steps(await say("the second of the three, how's it looking")), status(spec));
    assert.deepEqual(steps(await say("first loop i made, how many tries are left?")), status(plan));
    assert.deepEqual(steps(await say("show me everything that's still open")), [
      ["list_active_loops", {}],
    ]);
    const one = newChat("update");
    const id = loopIdOf(await one("start a build plan loop"));
    assert.deepEqual(steps(await one("can I have an update on how the loop is going")), status(id));
    assert.deepEqual(steps(await one("is it going anywhere or stuck?")), status(id));
    const two = newChat("older");
    const older = loopIdOf(await two("start a spec loop"));
    await two("start a build plan loop");
    assert.deepEqual(steps(await two("how's the older one getting along?")), status(older));
  } finally {
    await loop.close();
  }
});

Deno.test("the chat nuked, scrubbed or removed from this session; places compared in other words", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    for (
      const message of [
        "erase this whole thread from existence",
        "scrub each message of ours in this chat",
        "please delete our entire chat history from this session",
        "clear this conversation off your servers",
      ]
    ) {
      assert.deepEqual(steps(await newChat("nuke")(message)), [["forget_session", {}]], message);
    }
    const say = newChat("compare");
    assert.deepEqual(steps(await say("oslo vs lima, how big is the gap")), [
      time("oslo"),
      time("lima"),
    ]);
    assert.deepEqual(steps(await say("compare the time in cairo and quito")), [
      time("cairo"),
      time("quito"),
    ]);
    assert.deepEqual(steps(await say("difference in hours between denver and rome")), [
      time("denver"),
      time("rome"),
    ]);
    assert.deepEqual(steps(await say("in lisbon what is the hour please")), [time("lisbon")]);
  } finally {
    await loop.close();
  }
});

Deno.test("oi, ttyl, huh, and what the assistant is for", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("oi");
    const replies: [string, RegExp][] = [
      ["oi, anyone home?", /^Hello!/],
      ["haha im dead", /^Glad to help\./],
      ["right, bye, ttyl", /^Goodbye!$/],
      ["what's the point of this app", /^I choose among my tools/],
      ["which things r u able to handle", /^I choose among my tools/],
      ["i don't understand, what is this", /^I choose among my tools/],
      ["huh", /^I choose among my tools/],
    ];
    await assertRepliesOnly(say, replies);
  } finally {
    await loop.close();
  }
});
