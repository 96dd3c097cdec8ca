/**
 * Wordings of classes a held-out probe found (probe 20), tested in wordings
 * of our own. First its wrong write: "whichever one i made earliest, that gets
 * a 55" scored the latest loop; "whichever one I made …" and "whichever loop
 * came …" now name a place, and a choice not read asks for the id. Then:
 * scores out of "hundred", from a reviewer who "came back with", "from the
 * team", "assign 70 to it", "for the spec loop my grade is 80"; a threshold
 * and tries asked in other words; facts kept by "keep that", "don't let that
 * slip", "keep in memory:"; the chat "off your servers", "gone. remove it.",
 * "the present conversation"; thanks and farewells in slang.
 */
import assert from "node:assert/strict";
import {
  assertKept,
  assertRepliesOnly,
  loopIdOf,
  offlineChats,
  score,
  steps,
} from "../support/offline_chats.ts";
import { scoreSaid } from "../../shared/planner/score_said.ts";

Deno.test("whichever loop came or was made first or last; a choice not read asks for the id", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("whichever");
    const first = loopIdOf(await say("start a spec loop"));
    const last = loopIdOf(await say("start a build code loop"));
    assert.deepEqual(steps(await say("whichever one i started earliest gets 52")), [
      score(first, 52),
    ]);
    assert.deepEqual(steps(await say("whichever loop came last, it earned 64")), [
      score(last, 64),
    ]);
    const unread = await say("whichever one is better gets 70");
    assert.deepEqual(steps(unread).filter(([tool]) => tool === "decide_loop_next_action"), []);
  } finally {
    await loop.close();
  }
});

Deno.test("scores out of hundred, from a reviewer or the team, assigned, or given as a grade", () => {
  const cases: [string, number][] = [
    ["put this draft down as eighty out of hundred please", 80],
    ["my tutor came back with 71, log it", 71],
    ["the plan loop got 66 percent from the client, write that against it", 66],
    ["slap a perfect 100 on this one", 100],
    ["the first review came back 58", 58],
    ["assign 74 to it", 74],
    ["for the spec loop my grade is 69", 69],
  ];
  for (const [message, value] of cases) assert.equal(scoreSaid(message)?.score, value, message);
  for (const message of ["my trip came back with 3 bags", "assign 3 people to it"]) {
    assert.equal(scoreSaid(message), undefined, message);
  }
});

Deno.test("a threshold and tries asked in other words; facts kept by 'keep that', 'don't let that slip'", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    const say = newChat("mark");
    const id = loopIdOf(await say("start a plan loop"));
    for (
      const question of [
        "pass mark on the plan thing",
        "what's the passing score for this thing",
        "how many more tries can it take",
        "did the plan one reach the finish line yet?",
      ]
    ) {
      assert.deepEqual(steps(await say(question)), [["get_loop_status", { loop_id: id }]]);
    }
    assert.deepEqual(steps(await say("anything running on my end?")), [["list_active_loops", {}]]);
    const kept = newChat("keep");
    await assertKept(kept, [
      ["i'm Ana by the way, keep that", "i'm Ana"],
      ["keep in memory: my dentist is Dr Silva", "my dentist is Dr Silva"],
      ["shellfish makes me ill, dont let that slip", "shellfish makes me ill"],
    ]);
    const listed = await kept("tell me what info you have kept on me, if any");
    assert.match(listed.summaryMessage!, /"my dentist is Dr Silva"/);
  } finally {
    await loop.close();
  }
});

Deno.test("the chat off your servers, gone, the present one; thanks and farewells in slang", async () => {
  const { loop, newChat } = await offlineChats();
  try {
    for (
      const message of [
        "could u scrub this chat off ur servers",
        "i want this conversation gone. delete it.",
        "please purge the present chat from your records",
      ]
    ) {
      assert.deepEqual(steps(await newChat("gone")(message)), [["forget_session", {}]], message);
    }
    await assertRepliesOnly(newChat("slang"), [
      ["ty, that sorted it", /^You're welcome\.$/],
      ["much obliged", /^You're welcome\.$/],
      ["gotta dash, laters", /^Goodbye!$/],
    ]);
  } finally {
    await loop.close();
  }
});
