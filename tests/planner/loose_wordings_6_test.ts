/**
 * Wordings of classes a held-out probe found (probe 16), tested in wordings
 * of our own: a score said as a verdict, a report or with an arrow; a loop
 * named as "the most recent" or "the one I started in between", or by its
 * type alone for its status; yes/no questions on a loop's state; memory kept
 * and listed in other words; the chat thrown away, binned or wanted removed,
 * and asked about without a request; emoji and emoticons; laughs, slang and
 * thanks in other languages; "what are you for".
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

Deno.test("a score said as a verdict, a report, with an arrow, or in the past tense", () => {
  const cases: [string, number][] = [
    ["well this version barely deserves a 52", 52],
    ["the new draft really earned 83", 83],
    ["tests pass -> 66", 66],
    ["mostly there → 74 pts", 74],
    ["jot a 41 against it", 41],
    ["revised again, its worth 79 now", 79],
    ["i'd say it's about 70 give or take", 70],
    ["raised it to 58", 58],
    ["the examiner said 88", 88],
    ["our client rated this one at 64", 64],
    ["63 this round", 63],
    ["give it 71, record it", 71],
  ];
  for (const [message, value] of cases) assert.equal(scoreSaid(message)?.score, value, message);
  // A boss's number may be a time; money earned and ideas jotted are no scores.
  for (
    const message of [
      "my manager says 5",
      "the boss said 3 pm",
      "I earned 500 dollars",
      "jot 5 ideas for it",
      "my trip went badly -> 40",
    ]
  ) {
    assert.equal(scoreSaid(message), undefined, message);
  }
});

Deno.test("a loop named as the most recent, the one in between, or by its type for its status", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("named");
    const plan = loopIdOf(await say("start a plan loop"));
    const spec = loopIdOf(await say("start a spec loop"));
    const build = loopIdOf(await say("start a build code loop"));
    assert.deepEqual(steps(await say("the one i made in between earns 71")), [score(spec, 71)]);
    assert.deepEqual(steps(await say("put 44 on the most recent loop")), [score(build, 44)]);
    assert.deepEqual(steps(await say("the plan loop came out at 61 this round")), [
      score(plan, 61),
    ]);
    assert.deepEqual(steps(await say("the spec loop earned a 67 i think")), [score(spec, 67)]);
    assert.deepEqual(steps(await say("list every loop we run")), [["list_active_loops", {}]]);
    // The latest reply named the build code loop; the status asked of "the plan" is the plan loop's.
    const read = newChat("read");
    const planned = loopIdOf(await read("start a plan loop"));
    const coded = loopIdOf(await read("start a build code loop"));
    await read("start a spec loop");
    assert.deepEqual(steps(await read("status of the plan")), [["get_loop_status", {
      loop_id: planned,
    }]]);
    assert.deepEqual(steps(await read("how about the build code, status?")), [["get_loop_status", {
      loop_id: coded,
    }]]);
  } finally {
    await loop.close();
  }
});

Deno.test("yes or no on a loop's state, emoji around a score", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("state");
    const id = loopIdOf(await say("start a build plan loop"));
    assert.deepEqual(steps(await say("👍 give it 62 🙂")), [score(id, 62)]);
    for (
      const question of [
        "so has it finished or not",
        "did it make the cut?",
        "is it stalling",
        "what round are we at now",
        "slow progress, has it plateaued?",
      ]
    ) {
      assert.deepEqual(
        steps(await say(question)),
        [["get_loop_status", { loop_id: id }]],
        question,
      );
    }
  } finally {
    await loop.close();
  }
});

Deno.test("memory kept and listed in other words", async (t) => {
  const { loop, newChat } = await offlineChats();
  try {
    await t.step("kept", async () => {
      const say = newChat("kept");
      assert.deepEqual(steps(await say("my bike is a red Bianchi, keep it in your memory")), [
        ["remember", { fact: "my bike is a red Bianchi" }],
      ]);
      assert.deepEqual(steps(await say("btw I'm left-handed, keep that in mind")), [
        ["remember", { fact: "I'm left-handed" }],
      ]);
      assert.deepEqual(steps(await say("reply in german from now, save that")), [
        ["remember", { fact: "reply in german from now" }],
      ]);
      assert.deepEqual(steps(await say("note my locker number is 7")), [
        ["remember", { fact: "my locker number is 7" }],
      ]);
      for (
        const ask of [
          "anything kept on file about me?",
          "show me the things you stored concerning me",
          "tell me everything youve got saved on me",
        ]
      ) {
        const listed = await say(ask);
        assert.deepEqual(steps(listed), [], ask);
        assert.match(listed.summaryMessage!, /"my locker number is 7"/, ask);
      }
      assert.deepEqual(steps(await say("clear all the facts about me from your memory")), [
        ["forget", { everything: true }],
      ]);
    });

    await t.step("nothing kept yet", async () => {
      const empty = await newChat("empty")("do you hold any details on me at all?");
      assert.match(empty.summaryMessage!, /^I remember nothing about you yet/);
    });
  } finally {
    await loop.close();
  }
});

Deno.test("the chat thrown away, binned or wanted removed; asked about or kept, nothing deleted", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    for (
      const message of [
        "kindly throw out our whole discussion for me",
        "trash this entire chat 🚮",
        "i want our convo erased, thanks",
      ]
    ) {
      assert.deepEqual(steps(await newChat("bin")(message)), [["forget_session", {}]], message);
    }
    const asked = await newChat("asked")("is it possible for you to wipe this chat?");
    assert.deepEqual(steps(asked), []);
    assert.match(asked.summaryMessage!, /^I choose among my tools[\s\S]*forget_session/);
    for (const message of ["never erase our conversation", "please do not clear this chat"]) {
      const kept = await newChat("kept")(message);
      assert.deepEqual(steps(kept), [], message);
      assert.equal(kept.summaryMessage, "All right: I did not delete this conversation.", message);
    }
  } finally {
    await loop.close();
  }
});

Deno.test("the hour asked after a hello, two places with vs, another time of day", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("vs");
    assert.deepEqual(steps(await say("hey what's the hour in perth")), [time("perth")]);
    assert.deepEqual(steps(await say("denver vs rome, hrs apart?")), [
      time("denver"),
      time("rome"),
    ]);
    const other = await say("if its 6pm in cairo what time is it in dubai");
    assert.match(other.summaryMessage!, /I can only tell the current time/);
  } finally {
    await loop.close();
  }
});

Deno.test("laughs, slang, thanks in other languages, and what the assistant is for", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("slang");
    const replies: [string, RegExp][] = [
      ["hahaha", /^Glad to help\./],
      ["loool", /^Glad to help\./],
      ["oh ok neat", /^Glad to help\./],
      ["gracias!", /^You're welcome\.$/],
      ["cya", /^Goodbye!$/],
      ["ok see you tmrw", /^Goodbye!$/],
      ["nice to see you", /^Hello!/],
      ["yo bro 👋", /^Hello!/],
      ["hey how r u", /^Hello!/],
      ["what are you actually for?", /^I choose among my tools/],
      ["which things can you handle", /^I choose among my tools/],
      ["new here, what is this", /^I choose among my tools/],
      ["how does it work", /^I choose among my tools/],
    ];
    await assertRepliesOnly(say, replies);
    // "R" is a language too: kept as written.
    assert.deepEqual(steps(await say("remember that I write R code at work")), [
      ["remember", { fact: "I write R code at work" }],
    ]);
  } finally {
    await loop.close();
  }
});
