/**
 * Wordings of classes a held-out probe found (probe 14), tested in wordings
 * of our own. First the two wrong writes it found: a loop described in a way
 * the planner does not read ("the non-build one") took the latest loop's
 * score, and "number one gets 55" scored the latest loop. Then: a score after
 * a remark or with another verb; a loop named by its number or as "the loop I
 * opened second"; follow-up questions on a loop; what is open; memory asked
 * and cleared in other words; the chat deleted by "I'd like to …", "all the
 * messages in …"; the gap in hours between two places; thanks and help.
 */
import assert from "node:assert/strict";
import {
  assertRepliesOnly,
  loopIdOf,
  offlineChats,
  score,
  steps,
  time,
} from "../support/offline_chats.ts";
import { scoreSaid } from "../../shared/planner/score_said.ts";

Deno.test("a loop described in words not read is asked for, never taken to be the latest", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("unread");
    await say("start a spec loop");
    await say("start a build code loop");
    const unread = await say("the non-code one deserves 83");
    assert.deepEqual(steps(unread), []);
    assert.match(unread.summaryMessage!, /I need the loop id/);
    const numbered = newChat("numbered");
    const first = loopIdOf(await numbered("start a plan loop"));
    const second = loopIdOf(await numbered("start a spec loop"));
    assert.deepEqual(steps(await numbered("number one is at 57")), [score(first, 57)]);
    assert.deepEqual(steps(await numbered("loop no. 2 gets 61")), [score(second, 61)]);
    assert.deepEqual(steps(await numbered("give number one 44")), [score(first, 44)]);
    // Probe 15's two wrong writes: "the first of them" took the latest loop, and "build-plan one:
    // 80" started a build plan loop ("build" read as the verb).
    const ofThem = newChat("of-them");
    const older = loopIdOf(await ofThem("start a spec loop"));
    const builds2 = loopIdOf(await ofThem("start a build plan loop"));
    assert.deepEqual(steps(await ofThem("the first of them, give it 66")), [score(older, 66)]);
    assert.deepEqual(steps(await ofThem("build-plan one: 72")), [score(builds2, 72)]);
    // A form of a type's word names its loop; words two types share name neither.
    const builds = newChat("builds");
    const code = loopIdOf(await builds("start a build code loop"));
    await builds("start a build plan loop");
    assert.deepEqual(steps(await builds("the coding one gets 70")), [score(code, 70)]);
    const either = await builds("give the build one 60");
    assert.deepEqual(steps(either), []);
    assert.match(either.summaryMessage!, /I need the loop id/);
  } finally {
    await loop.close();
  }
});

Deno.test("a score after a remark on the draft, or with another verb", () => {
  const cases: [string, number][] = [
    ["seems solid to me, 77", 77],
    ["looks fine to me, 81", 81],
    ["the spec loop is decent enough overall, 68", 68],
    ["mostly working so 64", 64],
    ["crushed it — 98", 98],
    ["i'd stick a 59 on it", 59],
    ["log a 73 against it", 73],
    ["assess it at 81", 81],
    ["final verdict: 66/100", 66],
    ["my verdict: 59/100", 59],
    ["i give to this one sixty points only", 60],
    ["70 pts", 70],
  ];
  for (const [message, value] of cases) assert.equal(scoreSaid(message)?.score, value, message);
  // A remark with a number of its own, or a request, is no score.
  for (
    const message of [
      "I have 3 kids, 12",
      "call me at 5, 9",
      "start a loop, 50",
      "my essay went badly, got 40 points",
    ]
  ) {
    assert.equal(scoreSaid(message), undefined, message);
  }
});

Deno.test("loops asked after, and what is open", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("after");
    const spec = loopIdOf(await say("start a spec loop"));
    const plan = loopIdOf(await say("start a plan loop"));
    assert.deepEqual(steps(await say("rate the loop I opened first 52")), [score(spec, 52)]);
    assert.deepEqual(steps(await say("the specs loop: i rate 58")), [score(spec, 58)]);
    assert.deepEqual(steps(await say("give the loop I opened last 49")), [score(plan, 49)]);
    const single = newChat("after-one");
    const id = loopIdOf(await single("start a build plan loop"));
    for (
      const question of [
        "any news on it?",
        "did that pass it?",
        "has it reached the threshold?",
        "how many more tries does it get?",
      ]
    ) {
      assert.deepEqual(
        steps(await single(question)),
        [["get_loop_status", { loop_id: id }]],
        question,
      );
    }
    assert.deepEqual(steps(await say("what have I got open")), [["list_active_loops", {}]]);
  } finally {
    await loop.close();
  }
});

Deno.test("memory asked and cleared in other words; the chat deleted; the gap between places", async (t) => {
  const { loop, newChat } = await offlineChats();
  try {
    await t.step("memory", async () => {
      const say = newChat("memory-words");
      await say("i want that you remember my gate code is 4451");
      await say("remember I hate olives");
      const listed = await say("tell me all u've saved about me");
      assert.match(listed.summaryMessage!, /"my gate code is 4451"/);
      assert.match((await say("anything left in your memory?")).summaryMessage!, /olives/);
      assert.deepEqual(steps(await say("you can drop the gate codes now")), [
        ["forget", { what: "gate codes" }],
      ]);
      assert.deepEqual(steps(await say("no need to keep the olives one anymore")), [
        ["forget", { what: "olives" }],
      ]);
    });

    await t.step("the chat", async () => {
      for (
        const message of [
          "could u get rid of dis chat",
          "i'd like to delete this chat session",
          "wipe all the messages in this conversation please",
        ]
      ) {
        assert.deepEqual(steps(await newChat("wipe")(message)), [["forget_session", {}]], message);
      }
      assert.deepEqual(steps(await newChat("keep")("i want to delete some old messages")), []);
    });

    await t.step("places", async () => {
      const say = newChat("gap");
      assert.deepEqual(steps(await say("what's the gap in hours, lima to oslo?")), [
        time("lima"),
        time("oslo"),
      ]);
      assert.deepEqual(steps(await say("what's the difference in hours between rome and quito")), [
        time("rome"),
        time("quito"),
      ]);
      assert.deepEqual(steps(await say("please which hour it is now at Istanbul")), [
        time("Istanbul"),
      ]);
      assert.deepEqual(steps(await say("my aunt is in Perth now. what's the clock there")), [
        time("Perth"),
      ]);
    });

    await t.step("thanks, goodbye and help", async () => {
      const say = newChat("small");
      const replies: [string, RegExp][] = [
        ["many thanks, that helped", /^You're welcome\.$/],
        ["bye for now", /^Goodbye!$/],
        ["I'm confused, help", /^I choose among my tools/],
        ["are you able to keep notes for me?", /^I choose among my tools/],
      ];
      for (const [message, reply] of replies) {
        assert.match((await say(message)).summaryMessage!, reply, message);
      }
    });
  } finally {
    await loop.close();
  }
});

Deno.test("probe 15's classes: more scores, hours and follow-ups, small talk, features", async (t) => {
  const cases: [string, number][] = [
    ["could you jot down a 52 for it", 52],
    ["set its score on 71", 71],
    ["eh, six on ten", 60],
    ["three and a half out of 5", 70],
    ["quality is roughly 77%", 77],
    ["im giving this draft seventy two", 72],
    ["second draft is better. 64.", 64],
    ["runs but slow, gonna go 61", 61],
    ["no make that 58 actually", 58],
  ];
  for (const [message, value] of cases) assert.equal(scoreSaid(message)?.score, value, message);
  for (const message of ["go 2", "I have 3 kids. 12", "the quality is poor"]) {
    assert.equal(scoreSaid(message), undefined, message);
  }
  const { loop, newChat } = await offlineChats();
  try {
    await t.step("hours in other words", async () => {
      const say = newChat("hours-words");
      assert.deepEqual(steps(await say("whats hour now in lima")), [time("lima")]);
      assert.deepEqual(steps(await say("tokyo is how many hours in front of paris")), [
        time("tokyo"),
        time("paris"),
      ]);
      assert.deepEqual(steps(await say("hour difference between oslo and NYC")), [
        time("oslo"),
        time("NYC"),
      ]);
      assert.deepEqual(steps(await say("would it be night by now in lima")), [time("lima")]);
      assert.deepEqual(steps(await say("how many hours behind schedule am I?")), []);
    });

    await t.step("follow-ups on a loop", async () => {
      const say = newChat("follow-ups");
      const id = loopIdOf(await say("start a spec loop"));
      await say("give it 70");
      for (
        const question of [
          "is that enough to finish it?",
          "how many tries has it used so far",
          "so are we done here?",
        ]
      ) {
        assert.deepEqual(
          steps(await say(question)),
          [["get_loop_status", { loop_id: id }]],
          question,
        );
      }
    });

    await t.step("a place among loops by how it came, two scores with 'to', 'too'", async () => {
      const say = newChat("came");
      await say("start a spec loop");
      const second = loopIdOf(await say("start a build plan loop"));
      await say("start a plan loop");
      assert.deepEqual(steps(await say("the second one we started gets 47")), [score(second, 47)]);
      const pair = newChat("to-the");
      const plan = loopIdOf(await pair("start a plan loop"));
      const spec = loopIdOf(await pair("start a spec loop"));
      assert.deepEqual(steps(await pair("i'd give 62 to the spec and 81 to the plan")), [
        score(spec, 62),
        score(plan, 81),
      ]);
      const places = newChat("too");
      await places("time in lima?");
      assert.deepEqual(steps(await places("quito too?")), [time("quito")]);
      const memory = newChat("in-there");
      await memory("remember my gym is at 6");
      assert.match(
        (await memory("what is saved about me in there")).summaryMessage!,
        /gym is at 6/,
      );
    });

    await t.step("small talk, features and a chat wiped clean", async () => {
      const say = newChat("small-talk-15");
      const replies: [string, RegExp][] = [
        ["hiya", /^Hello!/],
        ["good night, talk tomorrow", /^Goodbye!$/],
        ["do you have any other features besides loops", /^I choose among my tools/],
      ];
      await assertRepliesOnly(say, replies);
      assert.deepEqual(steps(await newChat("clean")("wipe this chat clean")), [[
        "forget_session",
        {},
      ]]);
    });
  } finally {
    await loop.close();
  }
});
