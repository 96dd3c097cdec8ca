/**
 * Wordings of classes a held-out probe found (probe 13), tested in wordings
 * of our own: scores with a remark ("at most", "not bad"), "outta", a
 * correction by "the right number"; a loop named with its type and no
 * article, or as an aside first; a loop's state asked without "status";
 * deleting the chat by "make it go away" or "all traces"; the hour and the
 * clock of a place; the memory's notes asked for; a fact taken back with
 * "don't keep it", which is never kept as a fact; a fact found by an everyday
 * word of the same meaning ("mom", "sis", "called").
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

Deno.test("scores with a remark, 'outta', a bare 'rating', and corrections by the right number", () => {
  const cases: [string, number][] = [
    ["ugh, 38 at most", 38],
    ["9 outta 10 for me", 90],
    ["rating 4/5", 80],
    ["60!! not bad", 60],
    ["close to perfect, call it 96", 96],
    ["I think it deserve 71 point", 71],
    ["put down 88", 88],
    ["argh typo, the right number is 29", 29],
  ];
  for (const [message, value] of cases) assert.equal(scoreSaid(message)?.score, value, message);
  for (const message of ["score 5 items", "mark 3 emails read", "the real number is 12 apples"]) {
    assert.equal(scoreSaid(message), undefined, message);
  }
});

Deno.test("loops named without an article, as an aside, or as the one just started", async (t) => {
  const { loop, newChat } = await offlineChats();
  try {
    await t.step("'give spec loop 58', 'that plan loop, I'm giving it 70'", async () => {
      const say = newChat("no-article");
      const spec = loopIdOf(await say("start a spec loop"));
      const plan = loopIdOf(await say("start a plan loop"));
      assert.deepEqual(steps(await say("that plan loop, I'm giving it 70")), [score(plan, 70)]);
      assert.deepEqual(steps(await say("give spec loop 58")), [score(spec, 58)]);
      assert.deepEqual(steps(await say("the spec's worth 64 tbh")), [score(spec, 64)]);
      assert.deepEqual(steps(await say("the one I just started: 55")), [score(plan, 55)]);
    });

    await t.step("a type of two words without an article", async () => {
      const say = newChat("two-words");
      const build = loopIdOf(await say("start a build plan loop"));
      await say("start a plan loop");
      assert.deepEqual(steps(await say("give build plan loop 51")), [score(build, 51)]);
      assert.deepEqual(steps(await say("for the build plan I'd give 62")), [score(build, 62)]);
    });

    await t.step(
      "a loop named by part of its type, or a longer form of it, without an article",
      async () => {
        const say = newChat("part-type");
        const code = loopIdOf(await say("start a build code loop"));
        const spec = loopIdOf(await say("start a spec loop"));
        assert.deepEqual(steps(await say("code loop: 91 please")), [score(code, 91)]);
        assert.deepEqual(steps(await say("specification loop = 67")), [score(spec, 67)]);
        assert.deepEqual(steps(await say("spec loop 70 and code loop 45")), [
          score(spec, 70),
          score(code, 45),
        ]);
      },
    );

    await t.step("a loop's state asked without 'status'", async () => {
      const say = newChat("state-words");
      const id = loopIdOf(await say("start a spec loop"));
      for (
        const question of [
          "hows it going",
          "is it good enough to stop?",
          "are we done with it?",
          "how many rounds do I still have",
          "what score do I need for it?",
          "can I stop now?",
        ]
      ) {
        assert.deepEqual(
          steps(await say(question)),
          [["get_loop_status", { loop_id: id }]],
          question,
        );
      }
    });
  } finally {
    await loop.close();
  }
});

Deno.test("remarks, thanks and laughs get a short reply; what the app can do is listed", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("remarks");
    const replies: [string, RegExp][] = [
      [
        "the weather is lovely today",
        /^I did not act on that: none of my tools serves it\. Ask "what/,
      ],
      [
        "this app was kind of slow",
        /^I did not act on that: none of my tools serves it\. Ask "what/,
      ],
      ["you're a legend, ta", /^You're welcome\.$/],
      ["haha ok", /^Glad to help\./],
      ["heyyy", /^Hello!/],
      ["right, off to bed, good night", /^Goodbye!$/],
      ["what can this app do apart from time zones", /^I choose among my tools/],
    ];
    await assertRepliesOnly(say, replies);
  } finally {
    await loop.close();
  }
});

Deno.test("the chat deleted in more words, places by their hour or clock, the notes kept", async (t) => {
  const { loop, newChat } = await offlineChats();
  try {
    await t.step("deleting the chat", async () => {
      for (
        const message of [
          "make this chat go away",
          "remove all traces of our chat",
          "I'd like for this conversation to be erased completely",
        ]
      ) {
        assert.deepEqual(steps(await newChat("wipe")(message)), [["forget_session", {}]], message);
      }
      // Said of something else, or of another's chat: nothing is deleted.
      const say = newChat("not-wipe");
      assert.deepEqual(steps(await say("my friend made the chat disappear lol")), []);
      assert.deepEqual(steps(await say("I want the chat to be saved")), []);
    });

    await t.step("the hour and the clock of a place", async () => {
      const say = newChat("hour");
      assert.deepEqual(steps(await say("what o'clock is it in peru")), [time("peru")]);
      assert.deepEqual(steps(await say("hanoi hour?")), [time("hanoi")]);
      assert.deepEqual(steps(await say("how late in Oslo at the moment")), [time("Oslo")]);
      assert.deepEqual(steps(await say("time in toronto n vancouver")), [
        time("toronto"),
        time("vancouver"),
      ]);
      for (const message of ["happy hour?", "the clock in the kitchen is broken"]) {
        assert.deepEqual(steps(await say(message)), [], message);
      }
      const narnia = await say("clock in Narnia?");
      assert.match(narnia.summaryMessage!, /I don't know "Narnia" as the time zone/);
    });

    await t.step("the memory's notes asked for, and a fact taken back", async () => {
      const say = newChat("notes");
      await say("remember my gym is on Rua Augusta");
      for (
        const question of [
          "show me the notes you have on me",
          "what have you written down about me",
          "what's in your file on me",
        ]
      ) {
        const reply = await say(question);
        assert.deepEqual(steps(reply), [], question);
        assert.match(reply.summaryMessage!, /You asked me to remember: "my gym is on Rua Augusta"/);
      }
      await say("remember my desk is 4B");
      // Taken back: forgotten, never kept as the fact "actually don't".
      assert.deepEqual(steps(await say("actually don't remember that")), [
        ["forget", { what: "my desk is 4B" }],
      ]);
      await say("remember my badge is 7731");
      assert.deepEqual(steps(await say("nope, don't keep it")), [
        ["forget", { what: "my badge is 7731" }],
      ]);
    });

    await t.step(
      "everyday words of one meaning find the fact; what is no fact is not kept",
      async () => {
        const say = newChat("same-words");
        await say("remember my cat is named Biscuit");
        await say("my dad's birthday is June 2, don't lose that");
        await say("remember my sis moved to Gdansk");
        const asked: [string, RegExp][] = [
          ["what's my cat called?", /"my cat is named Biscuit"/],
          ["when is my father's birthday?", /"my dad's birthday is June 2"/],
          ["where did my sister move", /"my sis moved to Gdansk"/],
        ];
        for (const [question, fact] of asked) {
          assert.match((await say(question)).summaryMessage!, fact, question);
        }
        // A subject or a modal before "remember that" is no fact.
        for (
          const remark of ["I never forget that", "you should remember this", "we never lose it"]
        ) {
          assert.deepEqual(steps(await newChat("no-fact")(remark)), [], remark);
        }
      },
    );
  } finally {
    await loop.close();
  }
});
