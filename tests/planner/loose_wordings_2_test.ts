/**
 * More wordings the offline planner reads, each a class a held-out probe
 * found (probe 10): a loop named by its place ("the first one", "the other
 * loop"), a score corrected ("oops, I meant …") or said on a scale of five,
 * a loop asked for as the thing alone ("one more spec loop, please"), two
 * loops started in one message, a place the time tool does not know said to
 * be unknown, more ways of deleting the chat and of deleting a kept fact, and
 * a fact whose words after "I'm" are its value ("I'm O negative").
 */
import assert from "node:assert/strict";
import { loopIdOf, offlineChats, score, steps } from "../support/offline_chats.ts";
import { scoreSaid } from "../../shared/planner/score_said.ts";

Deno.test("corrections and scales of five are scores; other numbers are not", () => {
  const cases: [string, number][] = [
    ["whoops, I meant 64", 64],
    ["sorry, it should have been 58", 58],
    ["my bad, I meant to give it 73", 73],
    ["the score should be 81", 81],
    ["that one's a 59 from me", 59],
    ["two out of five", 40],
    ["I'd say it's 9 from 10", 90],
    ["3/5", 60],
    ["log 62 for it", 62],
    ["typo, 74", 74],
    ["two out of five stars", 40],
    ["my score for this draft: fifty one", 51],
    ["this version comes in at 68", 68],
  ];
  for (const [message, score] of cases) assert.equal(scoreSaid(message)?.score, score, message);
  for (
    const message of [
      "I meant 9 am",
      "it should be done by 5 pm",
      "7 out of 5",
      "I mean 4 of us",
      "record 5 minutes of audio",
      "log the 3 errors",
    ]
  ) assert.equal(scoreSaid(message), undefined, message);
});

Deno.test("loops named by their place, asked for alone, or two at once", async (t) => {
  const { loop, newChat } = await offlineChats();
  try {
    await t.step("'the first one', 'the second loop', 'the other one'", async () => {
      const say = newChat("places");
      const first = loopIdOf(await say("start a build plan loop"));
      const second = loopIdOf(await say("start a spec loop"));
      assert.deepEqual(steps(await say("how's the first one doing?")), [
        ["get_loop_status", { loop_id: first }],
      ]);
      assert.deepEqual(steps(await say("rate the second loop 71")), [
        ["decide_loop_next_action", { loop_id: second, current_score: 71 }],
      ]);
      // The latest reply named the second: the other is the first.
      assert.deepEqual(steps(await say("and the other one is a 64")), [
        ["decide_loop_next_action", { loop_id: first, current_score: 64 }],
      ]);
      // A third loop: "the other" could be either of two, so the id is asked for.
      await say("start a plan loop");
      const unsure = await say("my other loop gets 80");
      assert.deepEqual(steps(unsure), []);
      assert.match(unsure.summaryMessage!, /I need the loop id/);
    });

    await t.step("the state of the loop just named, asked casually", async () => {
      const say = newChat("casual-state");
      const id = loopIdOf(await say("start a build code loop"));
      for (
        const question of [
          "how's it looking?",
          "where's it at now",
          "how many rounds are left on it?",
          "is it finished already?",
          "how far along are we with it?",
        ]
      ) {
        assert.deepEqual(
          steps(await say(question)),
          [["get_loop_status", { loop_id: id }]],
          question,
        );
      }
      // Without a loop named before, a greeting stays a greeting.
      const fresh = newChat("casual-greeting");
      assert.deepEqual(steps(await fresh("how's it looking?")), []);
    });

    await t.step("a score for each loop named in one message", async () => {
      const say = newChat("two-scores");
      const build = loopIdOf(await say("start a build plan loop"));
      const spec = loopIdOf(await say("start a spec loop"));
      assert.deepEqual(steps(await say("give the build plan loop 66 and the spec loop 58")), [
        score(build, 66),
        score(spec, 58),
      ]);
      assert.deepEqual(steps(await say("spec: 70, build plan: 82")), [
        score(spec, 70),
        score(build, 82),
      ]);
    });

    await t.step("the state of each loop named, and whether one passed", async () => {
      const say = newChat("each-state");
      const spec = loopIdOf(await say("start a spec loop"));
      const code = loopIdOf(await say("start a build code loop"));
      const status = (id: string) => ["get_loop_status", { loop_id: id }];
      assert.deepEqual(steps(await say("status for both of them please")), [
        status(spec),
        status(code),
      ]);
      // Asked of all of them, the listing answers.
      assert.deepEqual(steps(await say("has anything finished yet?")), [["list_active_loops", {}]]);
      const single = newChat("passed");
      const id = loopIdOf(await single("start a plan loop"));
      await single("score it 91");
      assert.deepEqual(steps(await single("did it pass?")), [status(id)]);
    });

    await t.step("a loop named by its type: its state, or its score after a colon", async () => {
      const say = newChat("typed-state");
      const plan = loopIdOf(await say("start a plan loop"));
      const code = loopIdOf(await say("start a build code loop"));
      await say("start a spec loop");
      assert.deepEqual(steps(await say("has the plan one passed yet?")), [
        ["get_loop_status", { loop_id: plan }],
      ]);
      // A type of two words, then "one": that loop, not the latest.
      assert.deepEqual(steps(await say("how is the build code one doing")), [
        ["get_loop_status", { loop_id: code }],
      ]);
      assert.deepEqual(steps(await say("for the build code: 77")), [
        ["decide_loop_next_action", { loop_id: code, current_score: 77 }],
      ]);
    });

    await t.step(
      "of two loops, the older and the newer; unknown once a start has scrolled away",
      async () => {
        const say = newChat("older-newer");
        const older = loopIdOf(await say("start a spec loop"));
        const newer = loopIdOf(await say("start a build code loop"));
        assert.deepEqual(steps(await say("give the older loop 59")), [
          ["decide_loop_next_action", { loop_id: older, current_score: 59 }],
        ]);
        assert.deepEqual(steps(await say("how's the newer one looking?")), [
          ["get_loop_status", { loop_id: newer }],
        ]);
        // Of three, the middle one.
        const three = newChat("middle");
        await three("start a plan loop");
        const middle = loopIdOf(await three("start a build plan loop"));
        await three("start a spec loop");
        assert.deepEqual(steps(await three("how's the middle one looking?")), [
          ["get_loop_status", { loop_id: middle }],
        ]);
        // Five more turns: the starts have left the recent messages (the last ten).
        for (let i = 0; i < 4; i++) await say(`remember that note ${i} is fine`);
        const unsure = await say("rate the first one 70");
        assert.deepEqual(steps(unsure), []);
        assert.match(unsure.summaryMessage!, /I need the loop id/);
      },
    );

    await t.step("a correction scores the loop just scored again", async () => {
      const say = newChat("corrected");
      const id = loopIdOf(await say("start a plan loop"));
      await say("score it 66");
      assert.deepEqual(steps(await say("oh sorry, I meant 69")), [
        ["decide_loop_next_action", { loop_id: id, current_score: 69 }],
      ]);
    });

    await t.step("a loop asked for as the thing alone, with a word that asks", async () => {
      const say = newChat("alone");
      for (
        const [message, type] of [
          ["a new spec loop please", "spec"],
          ["one more build plan loop, thanks", "build_plan"],
          ["another code loop pls", "build_code"],
          ["a plan loop would be helpful", "plan"],
        ] as const
      ) {
        assert.deepEqual(steps(await say(message)), [
          ["initialize_refinement_loop", { loop_type: type }],
        ], message);
      }
      // Named without a word that asks, it is no request; nor is a thing no tool makes.
      assert.deepEqual(steps(await say("a spec loop")), [["list_active_loops", {}]]);
      assert.deepEqual(steps(await say("a cup of tea please")), []);
    });

    await t.step(
      "two loops started in one message, and not when the second part asks more",
      async () => {
        const say = newChat("two");
        assert.deepEqual(steps(await say("please start a plan loop and a spec loop")), [
          ["initialize_refinement_loop", { loop_type: "plan" }],
          ["initialize_refinement_loop", { loop_type: "spec" }],
        ]);
        assert.deepEqual(
          steps(await say("open a build code loop and then list my loops")).map(([tool]) => tool),
          ["initialize_refinement_loop", "list_active_loops"],
        );
      },
    );
  } finally {
    await loop.close();
  }
});

Deno.test("unknown places, deleting the chat and deleting a kept fact", async (t) => {
  const { loop, newChat } = await offlineChats();
  try {
    await t.step("a place the time tool does not know is said so", async () => {
      const say = newChat("unknown-place");
      for (const message of ["what's the time in Atlantis?", "time at Rivendell right now"]) {
        const data = await say(message);
        assert.deepEqual(steps(data), [], message);
        assert.match(
          data.summaryMessage!,
          /I don't know "(?:Atlantis|Rivendell)" as the time zone/,
        );
      }
      // About the writer, not the ask: the time is read as before.
      assert.deepEqual(steps(await say("I'm at Hogwarts, what time is it?")), [
        ["get_current_time", {}],
      ]);
    });

    await t.step(
      "two places compared with 'ahead or behind'; names no tool knows are said so",
      async () => {
        const say = newChat("ahead-or-behind");
        assert.deepEqual(steps(await say("is Seoul ahead or behind Madrid?")), [
          ["get_current_time", { time_zone: "Seoul" }],
          ["get_current_time", { time_zone: "Madrid" }],
        ]);
        // The reply says the hours between them.
        const apart = await say("how many hours between Seoul and Madrid?");
        assert.match(apart.summaryMessage!, /\nSeoul is [78] hours ahead of Madrid\.$/);
        const teams = await say("is Juventus ahead of Benfica?");
        assert.deepEqual(steps(teams), []);
        assert.match(teams.summaryMessage!, /I don't know "Juventus" as the time zone/);
      },
    );

    await t.step(
      "a relative's place said 'at my aunt's', and a wish said without 'to'",
      async () => {
        const say = newChat("relatives");
        await say("remember my aunt lives in Lagos");
        assert.deepEqual(steps(await say("what's the time at my aunt's?")), [
          ["get_current_time", { time_zone: "Lagos" }],
        ]);
        assert.deepEqual(steps(await say("i need you remember my gym is on Bay Street")), [
          ["remember", { fact: "my gym is on Bay Street" }],
        ]);
        assert.deepEqual(steps(await say("keep in mind my locker is 12")), [
          ["remember", { fact: "my locker is 12" }],
        ]);
        assert.deepEqual(steps(await say("you should remember for me that my gate is B4")), [
          ["remember", { fact: "my gate is B4" }],
        ]);
        // Not about the writer: no fact ("keep in mind the traffic" is advice).
        assert.deepEqual(steps(await say("keep in mind the traffic")), []);
      },
    );

    await t.step("a place said with its possessive; what to ask, in other words", async () => {
      const say = newChat("possessive");
      assert.deepEqual(steps(await say("what's Nairobi's time now?")), [
        ["get_current_time", { time_zone: "Nairobi" }],
      ]);
      for (const question of ["what types of questions can you answer?", "what should i ask?"]) {
        const data = await say(question);
        assert.deepEqual(steps(data), [], question);
        assert.match(data.summaryMessage!, /I can:/, question);
      }
    });

    await t.step("thanks and small talk get a word back, not a refusal", async () => {
      const say = newChat("small-talk");
      for (
        const [message, reply] of [
          ["much appreciated, mate", /^You're welcome\./],
          ["anyway, how are you today", /^Hello!/],
        ] as const
      ) {
        const data = await say(message);
        assert.deepEqual(steps(data), [], message);
        assert.match(data.summaryMessage!, reply, message);
      }
    });

    await t.step("more ways to delete this chat", async () => {
      for (
        const message of [
          "scrub this chat please",
          "toss the whole conversation",
          "ditch our chat log",
          "let's begin anew, get rid of this thread",
          "delete this conversation but keep my facts",
          "wipe out all we talked about",
          "clear the chat out please",
          "delette our chat",
        ]
      ) {
        const say = newChat("wipe");
        assert.deepEqual(steps(await say(message)), [["forget_session", {}]], message);
      }
      const say = newChat("no-wipe");
      assert.deepEqual(steps(await say("I scrubbed the chat log from my laptop")), []);
    });

    await t.step("'delete the …' forgets the kept fact it names, and only one", async () => {
      const say = newChat("delete-fact");
      await say("remember my parking spot is 214");
      await say("remember my neighbour is called Ines");
      assert.deepEqual(steps(await say("delete the parking spot number")), [
        ["forget", { what: "parking spot number" }],
      ]);
      assert.deepEqual(steps(await say("remove the neighbour stuff")), [
        ["forget", { what: "neighbour" }],
      ]);
      // Nothing kept holds it: no memory step.
      assert.deepEqual(steps(await say("delete the old invoice")), []);
      // The request to delete is no statement to quote back.
      const asked = await say("what's my parking spot?");
      assert.doesNotMatch(asked.summaryMessage!, /Earlier you said/);
    });

    await t.step("a fact whose words after 'I'm' are its value is corrected whole", async () => {
      const say = newChat("value-after-im");
      await say("remember my cousin is called Mateo");
      assert.deepEqual(steps(await say("sorry, it's spelt Matteo")), [
        ["forget", { what: "my cousin is called Mateo" }],
        ["remember", { fact: "my cousin is called Matteo" }],
      ]);
      await say("remember I'm B positive");
      assert.deepEqual(steps(await say("actually it's AB negative")), [
        ["forget", { what: "I'm B positive" }],
        ["remember", { fact: "I'm AB negative" }],
      ]);
    });
  } finally {
    await loop.close();
  }
});
