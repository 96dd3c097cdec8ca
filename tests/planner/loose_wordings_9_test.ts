/**
 * Wordings of classes a held-out probe found (probe 19), tested in wordings
 * of our own. First its wrong write: "that earliest code one is worth 66"
 * scored the latest loop (a plan loop), not the build code loop. Then: scores
 * as marks, reports and repeats ("update the marks as 88", "rating seventy",
 * "again 70", "for round one"); "the one in the middle"; a loop's state asked
 * of "this thing", as a progress report or whether it goes in circles; facts
 * kept by "keep this:", "note pls:", "note for later my …", "please remember
 * me"; the memory forgotten "the lot"; the chat after "changed my mind",
 * "everything we said in here"; "X vs Y how far apart", "how much hours".
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

Deno.test("a place word beside a loop's type names that type's loop, not the latest", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("earliest");
    const code = loopIdOf(await say("start a build code loop"));
    const plan = loopIdOf(await say("start a plan loop"));
    assert.deepEqual(steps(await say("that oldest code one is worth 61")), [score(code, 61)]);
    assert.deepEqual(steps(await say("the newest plan one gets 47")), [score(plan, 47)]);
    const unread = await say("that odd one gets 50");
    assert.deepEqual(steps(unread), []);
    assert.match(unread.summaryMessage!, /I need the loop id/);
  } finally {
    await loop.close();
  }
});

Deno.test("scores as marks, reports and repeats; the one in the middle", async () => {
  const cases: [string, number][] = [
    ["wow 100!! nailed it", 100],
    ["please update the marks as 77 for this loop sir", 77],
    ["first try landed at a meh 45", 45],
    ["it passed review with 83%", 83],
    ["for the plan one i put 64 por favor", 64],
    ["gave the plan loop a 58 after reviewing it", 58],
    ["forty for round one", 40],
    ["round three i rate 66", 66],
    ["rating sixty", 60],
    ["again 61", 61],
    ["61 once more, no change", 61],
  ];
  for (const [message, value] of cases) assert.equal(scoreSaid(message)?.score, value, message);
  for (const message of ["round 2 starts at 9", "again", "I came out at 9"]) {
    assert.equal(scoreSaid(message), undefined, message);
  }
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("middle");
    await say("start a plan loop");
    const middle = loopIdOf(await say("start a spec loop"));
    await say("start a build plan loop");
    assert.deepEqual(steps(await say("the one in the middle scored 57")), [score(middle, 57)]);
  } finally {
    await loop.close();
  }
});

Deno.test("a loop's state asked of 'this thing', as a progress report, or whether it goes in circles", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    for (
      const question of [
        "what score does this thing need to pass",
        "has that thing crossed the finish line",
        "progress report please",
        "what was the last score i gave it",
        "are we going in circles",
        "so did it wrap up or not",
      ]
    ) {
      const say = newChat("thing");
      const id = loopIdOf(await say("start a spec loop"));
      await say("give it 55");
      assert.deepEqual(
        steps(await say(question)),
        [["get_loop_status", { loop_id: id }]],
        question,
      );
    }
    const runs = newChat("runs");
    await runs("start a plan loop");
    assert.deepEqual(steps(await runs("got anything loopy running atm")), [
      ["list_active_loops", {}],
    ]);
  } finally {
    await loop.close();
  }
});

Deno.test("facts kept by 'keep this:', 'note pls:', 'note for later', 'please remember me'; forgotten, the lot", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("keep");
    const kept: [string, string][] = [
      ["keep this: my gym is on Elm street", "my gym is on Elm street"],
      ["save this about me: I speak Polish", "I speak Polish"],
      ["note pls: pollen gives me hay fever", "pollen gives me hay fever"],
      ["note for later my brothers name is Tom", "my brothers name is Tom"],
      ["I am Rosa, please remember me", "I am Rosa"],
      ["i collect stamps, store that somewhere", "i collect stamps"],
    ];
    await assertKept(say, kept);
    assert.match((await say("wat do u know about me")).summaryMessage!, /"I speak Polish"/);
    assert.deepEqual(steps(await say("make yourself forget all my details, the lot")), [
      ["forget", { everything: true }],
    ]);
    assert.deepEqual(steps(await say("i remember me as a kid")), []);
  } finally {
    await loop.close();
  }
});

Deno.test("the chat after 'changed my mind', everything said in here; places compared in other words", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    for (
      const message of [
        "hmm changed my mind, delete this whole conversation",
        "could you get rid of everything we typed in here",
        "remove all this chat please",
      ]
    ) {
      assert.deepEqual(steps(await newChat("chat")(message)), [["forget_session", {}]], message);
    }
    const asked = await newChat("asked")("could you wipe a conversation if i asked?");
    assert.deepEqual(steps(asked), []);
    assert.match(asked.summaryMessage!, /^I choose among my tools/);
    const say = newChat("far");
    assert.deepEqual(steps(await say("rome vs denver how far apart")), [
      time("rome"),
      time("denver"),
    ]);
    assert.deepEqual(steps(await say("japan is how much hours in front of spain?")), [
      time("japan"),
      time("spain"),
    ]);
    assert.deepEqual(steps(await say("which hour is now in lima please")), [time("lima")]);
  } finally {
    await loop.close();
  }
});

Deno.test("see ya, how's your week, you are very kind; any memories of me", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("kind");
    const replies: [string, RegExp][] = [
      ["right, see ya later", /^Goodbye!$/],
      ["gm! hows your week going", /^Hello!/],
      ["thank you, you are very kind", /^You're welcome\.$/],
      ["do you have any memories of me stored", /^I remember nothing about you yet/],
      ["so what's your purpose", /^I choose among my tools/],
      ["where do i even start", /^I choose among my tools/],
      ["what all services do you offer", /^I choose among my tools/],
    ];
    await assertRepliesOnly(say, replies);
  } finally {
    await loop.close();
  }
});
