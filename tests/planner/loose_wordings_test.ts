/**
 * Looser wordings the offline planner reads: a score hedged or said with a
 * verb of its own ("I'd put it at sixty"), a loop named by its type among
 * several, a loop's type said by another form of its word ("specification",
 * "the coding one", "buildcode"), and wishes for a loop said by who wishes
 * or by none ("we need a new loop", "need a build plan loop"), while a thing
 * of something ("get a list of my loops") stays a read; notes with no "that"
 * ("note down my …"), questions a kept fact answers though they open with
 * "wait" or ask where a thing was put, and time differences asked with "hrs",
 * "compared to", "between" or about the place just read.
 */
import assert from "node:assert/strict";
import { type Data, offlineChats, steps, time } from "../support/offline_chats.ts";
import { scoreSaid } from "../../shared/planner/score_said.ts";

Deno.test("a score said with hedges, a verb of its own or a scale", () => {
  const cases: [string, number, boolean][] = [
    ["honestly I'd say about sixty-two", 62, false],
    ["let's go with eighty-four", 84, true],
    ["raise it to 91", 91, true],
    ["seven out of ten, I guess", 70, false],
    ["the latest revision is worth 77", 77, true],
    ["it merits a 68", 68, true],
    ["rating: 64", 64, true],
    ["we'll call it 72", 72, true],
    ["I'm scoring this one a decent 58 for now", 58, true],
    ["ok so maybe 35ish", 35, false],
    ["9/10", 90, false],
    ["give it 80 points", 80, true],
    ["I've revised it, seventy now", 70, false],
    ["meh, call it 48", 48, true],
    ["it deserves a 91 tbh", 91, true],
    ["drop it to 41, it has gotten worse", 41, true],
    ["raise the rating to 67", 67, true],
    ["gonna settle on seventy-one for this one", 71, true],
    ["bump it to 83, way cleaner now", 83, true],
    ["mark this draft a 59, still rough", 59, true],
  ];
  for (const [message, score, asked] of cases) {
    assert.deepEqual(scoreSaid(message), { score, asked }, message);
  }
  for (
    const message of [
      "call me at 9",
      "it's 5 pm",
      "I'm 30",
      "give me 5 minutes",
      "it's worth 90 bucks",
      "put it in folder 12",
      "set an alarm for 7",
      "I want 3 loops",
      "remember 42",
      "give it 900",
      "give it 90, and start a spec loop",
      "it's 5, call me later",
    ]
  ) assert.equal(scoreSaid(message), undefined, message);
});

Deno.test("looser wordings for loops", async (t) => {
  const { loop, newChat } = await offlineChats();
  const loopIdOf = (data: Data) => /loop with id ([0-9a-f]{8})/.exec(data.summaryMessage!)![1];
  try {
    await t.step("a hedged score is recorded for the loop just named", async () => {
      const say = newChat("hedged");
      const id = loopIdOf(await say("kick off a loop for the build plan"));
      for (
        const [message, score] of [
          ["hmm, I'd put it at sixty", 60],
          ["it earns an 85 I think", 85],
          ["honestly like a five out of ten", 50],
        ] as const
      ) {
        assert.deepEqual(steps(await say(message)), [
          ["decide_loop_next_action", { loop_id: id, current_score: score }],
        ], message);
      }
    });

    await t.step("a loop named by its type takes the score, not the latest", async () => {
      const say = newChat("by-type");
      const plan = loopIdOf(await say("start a plan loop"));
      const spec = loopIdOf(await say("start a spec loop as well"));
      // The state of one, asked by its type.
      assert.deepEqual(steps(await say("how is the spec coming along?")), [
        ["get_loop_status", { loop_id: spec }],
      ]);
      assert.deepEqual(steps(await say("give the plan one a 62")), [
        ["decide_loop_next_action", { loop_id: plan, current_score: 62 }],
      ]);
      assert.deepEqual(steps(await say("rate the plan loop 66")), [
        ["decide_loop_next_action", { loop_id: plan, current_score: 66 }],
      ]);
      assert.deepEqual(steps(await say("bump the spec loop up to seventy")), [
        ["decide_loop_next_action", { loop_id: spec, current_score: 70 }],
      ]);
      // The type alone names the loop too.
      const alone = newChat("type-alone");
      const plan2 = loopIdOf(await alone("start a plan loop"));
      const spec2 = loopIdOf(await alone("start a spec loop as well"));
      assert.deepEqual(steps(await alone("score the plan 58")), [
        ["decide_loop_next_action", { loop_id: plan2, current_score: 58 }],
      ]);
      assert.deepEqual(steps(await alone("put the spec at eighty")), [
        ["decide_loop_next_action", { loop_id: spec2, current_score: 80 }],
      ]);
      // A type no loop of the conversation has, or two loops of the type: the id is asked for.
      assert.match((await alone("give the code one 71")).summaryMessage!, /I need the loop id/);
      const twice = newChat("two-plans");
      await twice("start a plan loop");
      await twice("start another plan loop");
      assert.match((await twice("rate the plan loop 90")).summaryMessage!, /I need the loop id/);
    });

    await t.step("a type said by another form of its word", async () => {
      for (
        const [answer, type] of [
          ["specification, please", "spec"],
          ["the coding one", "build_code"],
          ["buildcode", "build_code"],
          ["a planning one", "plan"],
          ["the coding kind", "build_code"],
        ] as const
      ) {
        const say = newChat("forms");
        assert.deepEqual(steps(await say("begin a refinement loop")), []);
        assert.deepEqual(steps(await say(answer)), [
          ["initialize_refinement_loop", { loop_type: type }],
        ], answer);
      }
      const direct = newChat("forms-direct");
      assert.deepEqual(steps(await direct("set up a loop for my specifications")), [
        ["initialize_refinement_loop", { loop_type: "spec" }],
      ]);
      // A word both types share names neither.
      assert.deepEqual(steps(await direct("start a build loop")), []);
    });

    await t.step(
      "working on a thing in a loop starts one; a score after a change is a score",
      async () => {
        const say = newChat("in-a-loop");
        assert.deepEqual(steps(await say("could you iterate on the build plan with a loop")), [
          ["initialize_refinement_loop", { loop_type: "build_plan" }],
        ]);
        const id = loopIdOf(await say("I'd like to start refining my code"));
        assert.deepEqual(steps(await say("ok I tweaked the draft, sixty-four now")), [
          ["decide_loop_next_action", { loop_id: id, current_score: 64 }],
        ]);
      },
    );

    await t.step("wishes for a loop, with or without who wishes", async () => {
      const say = newChat("wishes");
      for (
        const [message, type] of [
          ["we need a new loop for the spec", "spec"],
          ["would love another loop for the code", "build_code"],
          ["need a build plan loop", "build_plan"],
          ["could we get a loop going for the plan?", "plan"],
          ["gotta get a code loop going", "build_code"],
          ["could use a spec loop today", "spec"],
          ["it would be nice to have a build plan loop", "build_plan"],
          ["would like a code loop", "build_code"],
        ] as const
      ) {
        assert.deepEqual(steps(await say(message)), [
          ["initialize_refinement_loop", { loop_type: type }],
        ], message);
      }
      for (const message of ["get a list of my loops", "do a search for my loops"]) {
        assert.deepEqual(steps(await say(message)), [["list_active_loops", {}]], message);
      }
    });
  } finally {
    await loop.close();
  }
});

Deno.test("looser wordings for notes and times", async (t) => {
  const { loop, newChat } = await offlineChats();
  const kept = (data: Data) => steps(data).filter(([tool]) => tool === "remember");
  try {
    await t.step("a note with no 'that' keeps its fact", async () => {
      const say = newChat("notes");
      for (
        const [message, fact] of [
          ["jot down: oat milk, rye bread", "oat milk, rye bread"],
          ["note down my bike lock combination 3318", "my bike lock combination 3318"],
          ["could you make a quick note the plumber comes Thursday", "the plumber comes Thursday"],
          ["keep note — our wifi password is on the fridge", "our wifi password is on the fridge"],
          ["keep track of the fact that my train leaves at 7", "my train leaves at 7"],
          ["keep track of the fact my dentist is on Elm Street", "my dentist is on Elm Street"],
          ["make note, my badge number is 7781", "my badge number is 7781"],
          ["jot this: the ladder is in the shed", "the ladder is in the shed"],
          ["log that I'm allergic to penicillin", "I'm allergic to penicillin"],
          ["record this: locker 31", "locker 31"],
        ] as const
      ) assert.deepEqual(kept(await say(message)), [["remember", { fact }]], message);
      // Text to write is no fact of the writer's.
      assert.deepEqual(kept(await say("write down the steps to bake bread")), []);
      assert.deepEqual(kept(await say("jot down a packing list for the beach")), []);
      assert.deepEqual(kept(await say("log that crash for the team")), []);
    });

    await t.step(
      "a kept fact answers a question that opens with 'wait' or asks where a thing was put",
      async () => {
        const say = newChat("where-put");
        await say("remember that the charger is in the hall drawer");
        for (
          const question of [
            "wait where's the charger?",
            "where did I put the charger?",
            "hmm where is the charger again",
          ]
        ) {
          assert.match(
            (await say(question)).summaryMessage!,
            /the charger is in the hall drawer/,
            question,
          );
        }
      },
    );

    await t.step("a thing's number is the number a fact of the thing holds", async () => {
      const say = newChat("numbers");
      await say("remember my bike lock is 5521");
      await say("remember my laptop is a ThinkPad");
      assert.match(
        (await say("what's my bike lock code?")).summaryMessage!,
        /my bike lock is 5521/,
      );
      assert.doesNotMatch(
        (await say("what's my laptop number?")).summaryMessage!,
        /ThinkPad/,
        "a fact holding no number answers no question of a number",
      );
      const forgot = await say("forget my bike lock code");
      assert.deepEqual(steps(forgot), [["forget", { what: "my bike lock code" }]]);
      assert.match(forgot.summaryMessage!, /I forgot "my bike lock is 5521"/);
    });

    await t.step(
      "time differences with 'hrs', 'compared to', 'between', or the place just read",
      async () => {
        const say = newChat("differences");
        assert.deepEqual(steps(await say("how many hours between Denver and Dublin")), [
          time("Denver"),
          time("Dublin"),
        ]);
        assert.deepEqual(steps(await say("how many hrs behind is Phoenix compared to Boston")), [
          time("Phoenix"),
          time("Boston"),
        ]);
        assert.deepEqual(steps(await say("time in Oslo")), [time("Oslo")]);
        assert.deepEqual(steps(await say("how many hours ahead is that of Lima?")), [
          time("Oslo"),
          time("Lima"),
        ]);
        assert.deepEqual(steps(await say("time in Cairo?")), [time("Cairo")]);
        assert.deepEqual(steps(await say("and how far behind is Chicago?")), [
          time("Cairo"),
          time("Chicago"),
        ]);
        // "Later is it in" compares with the writer's own time: the place alone.
        assert.deepEqual(steps(await say("how many hours later is it in Perth?")), [time("Perth")]);
        // The two places read before, compared with each other.
        const two = newChat("the-two");
        await two("what time is it in Quito");
        await two("and in Manila?");
        assert.deepEqual(steps(await two("which one is later?")), [time("Quito"), time("Manila")]);
        assert.deepEqual(steps(await two("hmm how far apart are they")), [
          time("Quito"),
          time("Manila"),
        ]);
        assert.deepEqual(steps(await two("is it later in Lisbon or Warsaw?")), [
          time("Lisbon"),
          time("Warsaw"),
        ]);
        assert.deepEqual(
          steps(await two("what's the difference in time between Rome and Lagos?")),
          [time("Rome"), time("Lagos")],
        );
        // Two things compared that are no places ask no time ("Java" is an island too).
        assert.deepEqual(steps(await say("Is Python vs Java better for beginners?")), []);
      },
    );
  } finally {
    await loop.close();
  }
});
