/**
 * Everyday wordings the offline planner reads (the hashing embedder, PGlite,
 * the shipped tools): scores in words, a loop's type said on its own or
 * after "for", notes to keep, wishes for a new loop, questions about what
 * the writer did that memory answers, time differences asked with the place
 * compared with first, and scores that are no loop's. Each caller has a
 * memory and loops of their own.
 */
import assert from "node:assert/strict";
import { type Data, offlineChats, steps, time } from "../support/offline_chats.ts";
import { UNKNOWN_ABOUT_YOU_NOTE } from "../../shared/planner/planner_notes.ts";
import { spelledNumber, spelledNumbersIn } from "../../shared/text/spelled_numbers.ts";

Deno.test("numbers in words, zero to a hundred", () => {
  const cases: [string, number | undefined][] = [
    ["seventy-three", 73],
    ["Forty one", 41],
    ["sixty", 60],
    ["a hundred", 100],
    ["one hundred", 100],
    ["fourteen", 14],
    ["zero", 0],
    ["hundred and five", undefined],
    ["seventy seventy", undefined],
  ];
  for (const [words, value] of cases) assert.equal(spelledNumber(words), value, words);
  assert.deepEqual(
    spelledNumbersIn("rate the one I made fifty-five, not nineteen").map((n) => n.value),
    [55, 19],
    "a bare 'one' is a pronoun",
  );
});

Deno.test("everyday wordings a newcomer uses", async (t) => {
  const { loop, newChat } = await offlineChats();
  const loopIdOf = (data: Data) => /loop with id ([0-9a-f]{8})/.exec(data.summaryMessage!)![1];
  try {
    await t.step("a score said in words is recorded for the loop just named", async () => {
      const say = newChat("spelled");
      const id = loopIdOf(await say("kick off a refinement loop for our spec"));
      assert.deepEqual(steps(await say("give it seventy-eight")), [
        ["decide_loop_next_action", { loop_id: id, current_score: 78 }],
      ]);
      assert.deepEqual(steps(await say("score it eighty one")), [
        ["decide_loop_next_action", { loop_id: id, current_score: 81 }],
      ]);
      assert.deepEqual(steps(await say("ninety now")), [
        ["decide_loop_next_action", { loop_id: id, current_score: 90 }],
      ]);
    });

    await t.step("a loop's type said alone, or after 'for', is its type", async () => {
      const asked = newChat("type-alone");
      assert.deepEqual(steps(await asked("begin a refinement loop")), []);
      assert.deepEqual(steps(await asked("build code")), [
        ["initialize_refinement_loop", { loop_type: "build_code" }],
      ]);
      const again = newChat("type-after");
      await again("start a new loop");
      assert.deepEqual(steps(await again("for the code")), [
        ["initialize_refinement_loop", { loop_type: "build_code" }],
      ]);
      const direct = newChat("type-for");
      assert.deepEqual(steps(await direct("set up a loop for my code, thanks")), [
        ["initialize_refinement_loop", { loop_type: "build_code" }],
      ]);
      // A word of a type inside another thing names no type.
      assert.deepEqual(steps(await direct("start a loop for the zip code list")), []);
    });

    await t.step("a wish for a new loop starts one; for other things, nothing", async () => {
      const say = newChat("wish");
      assert.deepEqual(steps(await say("I'd like a new loop for the spec")), [
        ["initialize_refinement_loop", { loop_type: "spec" }],
      ]);
      assert.deepEqual(steps(await say("could I get a loop for the build plan")), [
        ["initialize_refinement_loop", { loop_type: "build_plan" }],
      ]);
      assert.deepEqual(steps(await say("I need a holiday")), []);
      assert.deepEqual(steps(await say("I want the time in Lima")), [time("Lima")]);
    });

    await t.step("a note asked for is kept", async () => {
      const say = newChat("notes");
      assert.deepEqual(steps(await say("keep a note that my badge number is 5521")), [
        ["remember", { fact: "my badge number is 5521" }],
      ]);
      assert.deepEqual(steps(await say("write down that the boiler service is in March")), [
        ["remember", { fact: "the boiler service is in March" }],
      ]);
      assert.deepEqual(steps(await say("take a note of my landlord's email, ana@example.org")), [
        ["remember", { fact: "my landlord's email, ana@example.org" }],
      ]);
    });

    await t.step("what the writer did is answered from memory, or said unknown", async () => {
      const say = newChat("did-i");
      await say("remember that my bike is locked at the north gate");
      const found = await say("where did I lock my bike?");
      assert.match(found.summaryMessage!, /my bike is locked at the north gate/);
      // The fact's word in another form: "booked" answers "book".
      await say("remember that I booked the table at Luigi's");
      const booked = await say("where did I book the table?");
      assert.match(booked.summaryMessage!, /I booked the table at Luigi's/);
      const unknown = await say("when did I renew my passport?");
      assert.equal(unknown.summaryMessage, UNKNOWN_ABOUT_YOU_NOTE);
    });

    await t.step("a time difference asked with the place compared with first", async () => {
      const say = newChat("difference");
      assert.deepEqual(steps(await say("how far behind Chicago is Denver?")), [
        time("Chicago"),
        time("Denver"),
      ]);
      assert.deepEqual(steps(await say("how many hours ahead is Seoul of Madrid?")), [
        time("Seoul"),
        time("Madrid"),
      ]);
      await say("what's the time in Nairobi");
      assert.deepEqual(steps(await say("how many hours ahead of Lagos is it?")), [
        time("Nairobi"),
        time("Lagos"),
      ]);
      // Not a place: nothing to read.
      assert.deepEqual(steps(await say("how far behind schedule are we?")), []);
    });

    await t.step("a score that is no loop's lists no loops", async () => {
      const say = newChat("other-scores");
      for (
        const message of [
          "what was the score of the Celtics match?",
          "any idea about the scores in yesterday's cup final",
          "is 700 a good credit score?",
        ]
      ) {
        assert.deepEqual(steps(await say(message)), [], message);
      }
      assert.deepEqual(steps(await say("what are the scores of my loops?")), [
        ["list_active_loops", {}],
      ]);
    });
  } finally {
    await loop.close();
  }
});
