/**
 * More wordings the offline planner reads, each a class a held-out probe
 * found (probe 12), tested in wordings of our own: scores with decimals, stars
 * said first, "of ten", half or full marks, corrections after a remark on the
 * last score; a loop named by a form of its type ("the planning loop"), by
 * "earlier"/"later" or by when it was started, several scores by place; what
 * is running, asked casually; places written in lower case, a place's clock,
 * "hours between" without "how many"; a kept fact named as "the … one".
 */
import assert from "node:assert/strict";
import { loopIdOf, offlineChats, score, steps, time } from "../support/offline_chats.ts";
import { scoreSaid } from "../../shared/planner/score_said.ts";

Deno.test("decimals, stars said first, 'of ten', marks and corrections are scores", () => {
  const cases: [string, number][] = [
    ["3 stars out of 5 for this one", 60],
    ["it's a 6.5 out of 10", 65],
    ["this round: 8.5/10", 85],
    ["full marks!", 100],
    ["half marks on this one", 50],
    ["I'd grade it 4 of 5", 80],
    ["argh, wrong number, it should be 41", 41],
    ["way too harsh, make it 66", 66],
    ["put 77 on that one", 77],
    ["give 58 to this", 58],
    ["the latest draft: 62", 62],
  ];
  for (const [message, value] of cases) assert.equal(scoreSaid(message)?.score, value, message);
  for (
    const message of [
      // Of ten or of a hundred: no telling.
      "8.5",
      "put 3 on the shelf",
      "half of them",
      "I have 2 of 10 left",
      "it's 7.5 miles away",
    ]
  ) assert.equal(scoreSaid(message), undefined, message);
});

Deno.test("loops named by a form of their type, by when they were started, or by place", async (t) => {
  const { loop, newChat } = await offlineChats();
  try {
    await t.step("'spec loop is at …', 'the planning loop', 'the earlier one'", async () => {
      const say = newChat("typed-forms");
      const spec = loopIdOf(await say("start a spec loop"));
      const plan = loopIdOf(await say("start a plan loop"));
      assert.deepEqual(steps(await say("spec loop is at 52 now")), [score(spec, 52)]);
      assert.deepEqual(steps(await say("the planning loop gets 61")), [score(plan, 61)]);
      assert.deepEqual(steps(await say("the specification loop deserves 57")), [score(spec, 57)]);
      // By when they were started: while both starts are among the recent messages.
      const again = newChat("started-when");
      const first = loopIdOf(await again("start a spec loop"));
      const second = loopIdOf(await again("start a plan loop"));
      assert.deepEqual(steps(await again("the earlier one: 70")), [score(first, 70)]);
      assert.deepEqual(steps(await again("and the later loop is a 73")), [score(second, 73)]);
      assert.deepEqual(steps(await again("give the one I opened last 48")), [score(second, 48)]);
    });

    await t.step("a score for each loop named by its place", async () => {
      const say = newChat("places-each");
      const code = loopIdOf(await say("start a build code loop"));
      const spec = loopIdOf(await say("start a spec loop"));
      assert.deepEqual(steps(await say("1st one 30, 2nd one 40")), [
        score(code, 30),
        score(spec, 40),
      ]);
    });

    await t.step("what is running, asked casually; small talk is not", async () => {
      const say = newChat("running");
      const id = loopIdOf(await say("start a build plan loop"));
      assert.deepEqual(steps(await say("where are we at with it")), [
        ["get_loop_status", { loop_id: id }],
      ]);
      for (const question of ["anything in progress right now?", "what have I got running"]) {
        assert.deepEqual(steps(await say(question)), [["list_active_loops", {}]], question);
      }
      // The state of one loop, asked of it: its read, not the listing beside it.
      for (
        const question of [
          "has this loop wrapped up?",
          "what's the target score for it?",
          "is our loop over yet?",
          "my build plan one, how is it looking",
        ]
      ) {
        assert.deepEqual(
          steps(await say(question)),
          [["get_loop_status", { loop_id: id }]],
          question,
        );
      }
      const fresh = newChat("small-talk");
      assert.deepEqual(steps(await fresh("what's going on?")), []);
      assert.deepEqual(steps(await fresh("running")), []);
    });
  } finally {
    await loop.close();
  }
});

Deno.test("places in lower case, a place's clock, 'hours between', and which of two is later", async (t) => {
  const { loop, newChat } = await offlineChats();
  try {
    await t.step("two known places read both, however they are written", async () => {
      const say = newChat("lower-places");
      assert.deepEqual(steps(await say("is lima behind madrid")), [time("lima"), time("madrid")]);
      assert.deepEqual(steps(await say("hours between Quito and Oslo")), [
        time("Quito"),
        time("Oslo"),
      ]);
      const later = await say("which is earlier now, Perth or Denver?");
      assert.deepEqual(steps(later), [time("Perth"), time("Denver")]);
      assert.match(later.summaryMessage!, /Perth is \d+ hours ahead of Denver\./);
      assert.deepEqual(steps(await say("lisbon clock?")), [time("lisbon")]);
    });

    await t.step("a name that is no place is said to be unknown", async () => {
      const say = newChat("unknown-places");
      for (
        const [question, named] of [
          ["Gondor time?", "Gondor"],
          ["is sales ahead of marketing", "sales"],
          ["which is later, Lakers or Celtics?", "Lakers"],
          // Lower-case words compared are read as names: never the time in UTC for them.
          ["hours between classes and dinner?", "classes"],
        ]
      ) {
        const reply = await say(question);
        assert.deepEqual(steps(reply), [], question);
        assert.match(reply.summaryMessage!, new RegExp(`I don't know "${named}" as the time zone`));
      }
      // Lower case after "in" is not taken for a name: the tool answers as before.
      assert.deepEqual(steps(await say("what time is it in my hometown?")), [
        ["get_current_time", {}],
      ]);
    });
  } finally {
    await loop.close();
  }
});

Deno.test("a kept fact named as 'the … one' is the one forgotten", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("the-one");
    await say("remember the gym locker is 118");
    await say("remember my dentist is Dr. Okafor");
    assert.deepEqual(steps(await say("scrap the dentist one")), [["forget", { what: "dentist" }]]);
    assert.match((await say("what do you remember?")).summaryMessage!, /gym locker is 118/);
    // Naming nothing kept plans nothing.
    assert.deepEqual(steps(await say("remove the printer one")), []);
  } finally {
    await loop.close();
  }
});
