/**
 * Wordings of classes a held-out probe found (probe 18), tested in wordings
 * of our own: a score after a remark about the writer when it is asked for,
 * "bump to", "log a grade of", "I'd give it" after a remark with no comma,
 * "no notes"; what a loop must reach and how many tries it has or has had; a
 * fact kept by "file that away", "commit that to memory", "hang onto that",
 * "keep on file that"; the chat as "this back and forth", "from today"; the
 * hour after "yo", clocks side by side, the place asked after another time
 * of day; "heyo", "catch you tomorrow", "have a good one".
 */
import assert from "node:assert/strict";
import {
  assertKept,
  assertRepliesOnly,
  loopIdOf,
  offlineChats,
  steps,
  time,
} from "../support/offline_chats.ts";
import { scoreSaid } from "../../shared/planner/score_said.ts";

Deno.test("a score asked for after a remark, moved to, logged as a grade, or given after a remark", () => {
  const cases: [string, number][] = [
    ["my draft got reviewed, the tutor says 68", 68],
    ["third pass reads better, bump to 81", 81],
    ["would you kindly log a grade of 74 for it? thanks", 74],
    ["ok so it reads well now id give it eighty five out of a hundred", 85],
    ["10/10 no notes", 100],
    ["its a 92 now, surely done", 92],
  ];
  for (const [message, value] of cases) assert.equal(scoreSaid(message)?.score, value, message);
  // About the writer, a number said plainly is no score; nor a move to a day.
  for (const message of ["my exam went fine, got 90", "bump to tomorrow", "set to 5"]) {
    assert.equal(scoreSaid(message), undefined, message);
  }
});

Deno.test("what a loop must reach, how many tries it has or has had, and the middle one", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("limits");
    const id = loopIdOf(await say("start a build plan loop"));
    const status = [["get_loop_status", { loop_id: id }]];
    for (
      const question of [
        "what score does it have to reach to pass",
        "what's the maximum number of rounds it's allowed",
        "how many tries remain before it stops",
        "how many attempts have we used up",
        "so what's its standing now",
      ]
    ) {
      assert.deepEqual(steps(await say(question)), status, question);
    }
    const three = newChat("middle");
    await three("start a spec loop");
    const middle = loopIdOf(await three("start a plan loop"));
    await three("start a build code loop");
    assert.deepEqual(steps(await three("hows the middle one doing")), [["get_loop_status", {
      loop_id: middle,
    }]]);
  } finally {
    await loop.close();
  }
});

Deno.test("facts filed away, committed, held onto; the back and forth deleted", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("filed");
    const kept: [string, string][] = [
      ["my dog is called Pepper, file that away", "my dog is called Pepper"],
      ["dairy gives me hives, commit that to memory", "dairy gives me hives"],
      ["i'm Lee btw, hang onto that", "i'm Lee"],
      ["keep on file that my flat is 4B", "my flat is 4B"],
      ["i bike to work, pls hold on to that info", "i bike to work"],
    ];
    await assertKept(say, kept);
    const held = await say("is there anything personal you hold about me");
    assert.match(held.summaryMessage!, /"my flat is 4B"/);
    assert.deepEqual(steps(await say("wipe every single fact you have about me")), [
      ["forget", { everything: true }],
    ]);
    for (
      const message of ["erase this whole back and forth please", "delete our chat from today"]
    ) {
      assert.deepEqual(steps(await newChat("bin")(message)), [["forget_session", {}]], message);
    }
    const asked = await newChat("asked")("are you able to delete conversations?");
    assert.deepEqual(steps(asked), []);
    assert.match(asked.summaryMessage!, /^I choose among my tools/);
  } finally {
    await loop.close();
  }
});

Deno.test("the hour after 'yo', clocks side by side, the place asked after another time", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("clocks");
    assert.deepEqual(steps(await say("yo what o'clock is it in lima")), [time("lima")]);
    assert.deepEqual(steps(await say("oslo + cairo clocks please")), [time("oslo"), time("cairo")]);
    const other = await say("if its 8am here in denver whats the time in rome");
    assert.deepEqual(steps(other), [time("rome")]);
    assert.match(other.summaryMessage!, /I can only tell the current time/);
  } finally {
    await loop.close();
  }
});

Deno.test("heyo, catch you tomorrow, have a good one, what am I supposed to type", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("bye");
    const replies: [string, RegExp][] = [
      ["heyo anybody there", /^Hello!/],
      ["ok im off, catch you tomorrow", /^Goodbye!$/],
      ["have a good one", /^Goodbye!$/],
      ["what am i supposed to write here", /^I choose among my tools/],
    ];
    await assertRepliesOnly(say, replies);
  } finally {
    await loop.close();
  }
});
