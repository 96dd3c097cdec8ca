/**
 * A newcomer's later turns, read with the ones before them (the offline
 * planner, the hashing embedder, PGlite, the shipped tools): comparisons with
 * the last answer, bare answers to the reply's own question, corrections of a
 * fact just kept, questions about a loop just named or about the chat itself,
 * and idioms that name a tool's word without asking for it. Each caller has
 * a memory and loops of their own, so no step sees another's.
 */
import assert from "node:assert/strict";
import { offlineChats, type Step, steps, time } from "../support/offline_chats.ts";
import { UNKNOWN_ABOUT_YOU_NOTE } from "../../shared/planner/planner_notes.ts";

Deno.test("later turns are read with the conversation before them", async (t) => {
  const { loop, newChat } = await offlineChats();
  try {
    await t.step("a comparison with the last answer asks both places", async () => {
      const say = newChat("compare");
      await say("time in Nairobi please");
      assert.deepEqual(steps(await say("is that behind Dubai?")), [
        time("Nairobi"),
        time("Dubai"),
      ]);
      await say("time in Manila");
      assert.deepEqual(steps(await say("and is it the same as Singapore")), [
        time("Manila"),
        time("Singapore"),
      ]);
      await say("how far apart are Rome and Cairo in time?");
      assert.deepEqual(steps(await say("so between Cairo and Delhi?")), [
        time("Cairo"),
        time("Delhi"),
      ]);
      // Not a comparison: no time is asked again.
      assert.deepEqual(steps(await say("is that a problem for you?")), []);
    });

    await t.step("a follow-up opening with several small words still follows up", async () => {
      const say = newChat("opening");
      await say("what's the time in Geneva");
      assert.deepEqual(steps(await say("hmm ok and what about Zurich")), [time("Zurich")]);
    });

    await t.step(
      "a place alone, or 'which one is … in', answers the reply's question",
      async () => {
        const say = newChat("which");
        const several = await say("what time is it in the US right now");
        assert.match(several.summaryMessage!, /more than one time zone/);
        assert.deepEqual(steps(await say("Denver?")), [time("Denver")]);
        assert.deepEqual(steps(await say("which zone is Phoenix in?")), [time("Phoenix")]);
        // A question word alone names nothing.
        assert.deepEqual(steps(await say("why?")), []);
      },
    );

    await t.step("where the writer said they are, in this chat, is 'here'", async () => {
      const said = newChat("here-said");
      await said("we moved to Helsinki last year");
      assert.deepEqual(steps(await said("what's the time here?")), [time("Helsinki")]);
      const answered = newChat("here-answered");
      assert.deepEqual(steps(await answered("what time is it where I am?")), [
        ["get_current_time", {}],
      ]);
      assert.deepEqual(steps(await answered("oh I'm based in Denver")), [time("Denver")]);
      // Someone else's town is not the writer's.
      const other = newChat("here-other");
      await other("my aunt lives in Oslo");
      assert.deepEqual(steps(await other("what's my local time")), [["get_current_time", {}]]);
    });

    await t.step("a fact just kept can be corrected or added to", async () => {
      const say = newChat("amend");
      await say("please remember my gym is on Elm Street");
      assert.deepEqual(steps(await say("sorry, Oak Street")), [
        ["forget", { what: "my gym is on Elm Street" }],
        ["remember", { fact: "my gym is on Oak Street" }],
      ]);
      await say("remember I collect stamps");
      assert.deepEqual(steps(await say("and coins as well")), [
        ["remember", { fact: "I collect coins" }],
      ]);
      await say("remember I commute by bus");
      assert.deepEqual(steps(await say("no, I commute by tram")), [
        ["forget", { what: "I commute by bus" }],
        ["remember", { fact: "I commute by tram" }],
      ]);
      const listed = await say("what do you remember about me?");
      assert.match(listed.summaryMessage!, /my gym is on Oak Street/);
      assert.doesNotMatch(listed.summaryMessage!, /Elm Street/);
      // A request after a fact is a request, not more of the fact.
      assert.deepEqual(steps(await say("and list my loops")), [["list_active_loops", {}]]);
      // Small talk after a fact changes nothing in it.
      for (
        const remark of ["no problem", "actually, I'm not sure", "sorry, my bad", "wait, what"]
      ) {
        await say("remember my desk is by the window");
        assert.deepEqual(steps(await say(remark)), [], remark);
      }
    });

    await t.step("'it's …' answering a question about the writer keeps what it names", async () => {
      const say = newChat("answer");
      const unknown = await say("what's my blood type?");
      assert.equal(unknown.summaryMessage, UNKNOWN_ABOUT_YOU_NOTE);
      assert.deepEqual(steps(await say("it's O negative, please remember that")), [
        ["remember", { fact: "my blood type is O negative" }],
      ]);
    });

    await t.step("a question about the writer quotes only what is about that thing", async () => {
      const say = newChat("owned");
      await say("remember that my favourite drink is mint tea");
      const other = await say("what's my favourite film?");
      assert.equal(other.summaryMessage, UNKNOWN_ABOUT_YOU_NOTE);
      assert.match((await say("what is my favourite drink")).summaryMessage!, /mint tea/);
      // The ask to keep it is not quoted as a statement beside the memory.
      assert.doesNotMatch((await say("what is my favourite drink")).summaryMessage!, /Earlier/);
      const name = await say("do you know my shoe size?");
      assert.equal(name.summaryMessage, UNKNOWN_ABOUT_YOU_NOTE);
    });

    await t.step("forgetting: 'the one about …', and 'all of them' after a listing", async () => {
      const say = newChat("forget");
      await say("remember my locker code is 4411");
      await say("remember that I take the 8:10 train");
      assert.deepEqual(steps(await say("remove the one about the train")), [
        ["forget", { what: "the train" }],
      ]);
      await say("what have you saved about me?");
      assert.deepEqual(steps(await say("ok delete all of them")), [
        ["forget", { everything: true }],
      ]);
      // Without a listing before it, "forget all of that" lets the request go.
      const other = newChat("forget-other");
      await other("what time is it in Quito");
      const dropped = await other("forget all of that");
      assert.deepEqual(steps(dropped), []);
      assert.match(dropped.summaryMessage!, /^All right, I left it\./);
    });

    await t.step("an ask to keep a fact may say 'at least' or 'maybe'", async () => {
      const say = newChat("adverb");
      assert.deepEqual(steps(await say("could you at least remember that my flight is AF12")), [
        ["remember", { fact: "my flight is AF12" }],
      ]);
    });

    await t.step("a greeting before a statement is answered as both", async () => {
      const say = newChat("hello");
      const data = await say("hey, I'm Noor");
      assert.deepEqual(steps(data), []);
      assert.match(data.summaryMessage!, /^Hello! I did not act on that/);
    });

    await t.step("a question about the loop just named reads its state", async () => {
      const say = newChat("state");
      const started = await say("create a plan loop");
      const id = /with id ([0-9a-f]{8})/.exec(started.summaryMessage!)![1];
      for (const question of ["has it finished?", "what's the target for it?", "is it stuck"]) {
        assert.deepEqual(steps(await say(question)), [["get_loop_status", { loop_id: id }]]);
      }
      await say("list my loops");
      assert.deepEqual(steps(await say("are all of them done?")), [["list_active_loops", {}]]);
      // After an answer naming no loop, nothing is read.
      await say("what's the time in Lima");
      assert.deepEqual(steps(await say("is it done?")), []);
    });

    await t.step("'one' stands for the thing the message before named", async () => {
      const say = newChat("one");
      await say("start a build_plan loop");
      assert.deepEqual(steps(await say("now start another one")), [
        ["initialize_refinement_loop", { loop_type: "build_plan" }],
      ]);
      const asked = newChat("one-asked");
      const missing = await asked("kick off a build loop");
      assert.match(missing.summaryMessage!, /I need the loop type/);
      assert.deepEqual(steps(await asked("the spec one")), [
        ["initialize_refinement_loop", { loop_type: "spec" }],
      ]);
    });

    await t.step("'what is a …' about the tools' own things describes those tools", async () => {
      const say = newChat("explain");
      const data = await say("so what are refinement loops?");
      assert.deepEqual(steps(data), []);
      assert.match(data.summaryMessage!, /no language model here to explain "refinement loops"/);
      assert.match(data.summaryMessage!, /initialize_refinement_loop/);
      assert.doesNotMatch(data.summaryMessage!, /get_current_time/);
      // "the …" asks for its value, not what it is.
      assert.deepEqual(steps(await say("what's the date")), [["get_current_time", {}]]);
      assert.deepEqual(steps(await say("what is my loop's status")).map(([tool]) => tool), [
        "list_active_loops",
      ]);
    });

    await t.step("questions about this chat bring back its messages", async () => {
      const say = newChat("chat");
      await say("time in Accra");
      await say("I had pancakes this morning");
      const recap = await say("recap our chat");
      assert.deepEqual(steps(recap), []);
      assert.match(recap.summaryMessage!, /"time in Accra"[\s\S]*"I had pancakes this morning"/);
      const first = await say("what was my very first question?");
      assert.match(first.summaryMessage!, /^Earlier you wrote:\n- "time in Accra"$/);
      const topic = await say("we were chatting about pancakes before, right?");
      assert.match(topic.summaryMessage!, /^Earlier we wrote about pancakes:/);
      // A question's own word that no message holds ("cities") brings back the latest ones.
      const cities = await say("which cities did I ask about?");
      assert.match(cities.summaryMessage!, /"time in Accra"/);
    });

    await t.step("more follow-ups on a time: 'same as …', '… i mean', 'the one in …'", async () => {
      const same = newChat("same");
      await same("time in Denver");
      assert.deepEqual(steps(await same("same as Chicago, right?")), [
        time("Denver"),
        time("Chicago"),
      ]);
      await same("time in Accra");
      assert.deepEqual(steps(await same("and Lagos, are they in the same zone?")), [
        time("Accra"),
        time("Lagos"),
      ]);
      const meant = newChat("meant");
      await meant("what time is it in Canada");
      assert.deepEqual(steps(await meant("vancouver i mean")), [time("vancouver")]);
      await meant("time in Portland");
      assert.deepEqual(steps(await meant("no, the one in Oregon")), [time("Oregon")]);
      await meant("time in Tokyo");
      assert.deepEqual(steps(await meant("is it tomorrow there?")), [time("Tokyo")]);
      assert.deepEqual(steps(await meant("come again?")), [time("Tokyo")]);
    });

    await t.step("the time asked without its word, and places by offset", async () => {
      const say = newChat("asked");
      assert.deepEqual(steps(await say("can I ring my dad in Auckland now or is he asleep")), [
        time("Auckland"),
      ]);
      assert.deepEqual(steps(await say("what time do people have in Oslo")), [time("Oslo")]);
      const offset = await say("time in GMT-4 please");
      assert.deepEqual(steps(offset), [time("GMT-4")]);
      assert.match(offset.summaryMessage!, /^In UTC-4 it is .* GMT-4\.$/);
      assert.deepEqual(steps(await say("time in belfast")), [time("belfast")]);
      assert.match((await say("time in the Falklands")).summaryMessage!, /Atlantic\/Stanley/);
      // Another time of day than now is said to be beyond it.
      const other = await say("if it's 8am in Madrid, what time is it in Lima?");
      assert.deepEqual(steps(other), [time("Lima")]);
      assert.match(other.summaryMessage!, /That is the time now: I can only tell the current time/);
    });

    await t.step("a relative's place, and 'for me', come from what was said", async () => {
      const say = newChat("whose");
      await say("remember my nephew lives in Quito");
      assert.deepEqual(steps(await say("what time is it for my nephew?")), [time("Quito")]);
      const us = newChat("us");
      await us("we're staying in Lisbon this week");
      assert.deepEqual(steps(await us("what's the time for us?")), [time("Lisbon")]);
    });

    await t.step("'there' in a fact is the place just asked about", async () => {
      const say = newChat("there");
      assert.deepEqual(
        steps(await say("what's the time in Rome and remember that we're flying there in June")),
        [time("Rome"), ["remember", { fact: "we're flying to Rome in June" }]],
      );
      await say("time in Hanoi");
      assert.deepEqual(steps(await say("nice, remember that my supplier is there")), [
        ["remember", { fact: "my supplier is in Hanoi" }],
      ]);
      // "There is" is no place.
      assert.deepEqual(steps(await say("remember that there is a fee")), [
        ["remember", { fact: "there is a fee" }],
      ]);
    });

    await t.step("more ways to keep, amend and list facts", async () => {
      const say = newChat("facts");
      assert.deepEqual(steps(await say("my shoe size is 42, please remember")), [
        ["remember", { fact: "my shoe size is 42" }],
      ]);
      assert.deepEqual(steps(await say("um, I meant 43")), [
        ["forget", { what: "my shoe size is 42" }],
        ["remember", { fact: "my shoe size is 43" }],
      ]);
      assert.deepEqual(steps(await say("and that my hat size is 7")), [
        ["remember", { fact: "my hat size is 7" }],
      ]);
      assert.deepEqual(steps(await say("oops, forget that")), [
        ["forget", { what: "my hat size is 7" }],
      ]);
      await say("remember I'm learning French");
      assert.deepEqual(steps(await say("and also Italian")), [
        ["remember", { fact: "I'm learning Italian" }],
      ]);
      for (const question of ["which details about me have you kept", "show me your notes on me"]) {
        assert.match((await say(question)).summaryMessage!, /my shoe size is 43/, question);
      }
    });

    await t.step("a score said loosely goes to the loop just named", async () => {
      const say = newChat("score");
      const started = await say("open a plan loop");
      const id = /with id ([0-9a-f]{8})/.exec(started.summaryMessage!)![1];
      const score = (n: number): Step[] => [[
        "decide_loop_next_action",
        { loop_id: id, current_score: n },
      ]];
      assert.deepEqual(steps(await say("give it 70")), score(70));
      assert.deepEqual(steps(await say("81 now")), score(81));
      assert.deepEqual(steps(await say("the second draft got 66")), score(66));
      assert.deepEqual(steps(await say("rate it 7/10")), score(70));
      // Its state is read (beside the listing their words also ask for).
      for (const question of ["what kind of loop is it?", "what should we do now?"]) {
        assert.deepEqual(steps(await say(question))[0], ["get_loop_status", { loop_id: id }]);
      }
      // A bare number with no loop named before scores nothing.
      const other = newChat("score-other");
      await other("time in Oslo");
      assert.deepEqual(steps(await other("64")), []);
    });

    await t.step("more wordings: deleting the chat, what else it does, how it began", async () => {
      const say = newChat("more");
      for (const message of ["scrap this conversation", "delete this chat and everything in it"]) {
        assert.deepEqual(steps(await say(message)), [["forget_session", {}]], message);
      }
      const other = newChat("more-other");
      const can = await other("could you do something other than the time?");
      assert.deepEqual(steps(can), []);
      assert.match(can.summaryMessage!, /^I choose among my tools/);
      await other("time in Lima");
      assert.match(
        (await other("what did I start with?")).summaryMessage!,
        /^Earlier you wrote:\n- "could you do something other than the time\?"$/,
      );
      assert.match(
        (await other("explain working memory to me")).summaryMessage!,
        /no language model here to explain "working memory"[\s\S]*\(remember\)/,
      );
    });

    await t.step("a second held-out probe's classes, in other words", async () => {
      const loopChat = newChat("probe6-loop");
      const started = await loopChat("begin a spec loop");
      const id = /with id ([0-9a-f]{8})/.exec(started.summaryMessage!)![1];
      for (
        const [said, n] of [["my draft got an 58", 58], ["61 out of 100", 61], [
          "rate this draft 64",
          64,
        ]] as const
      ) {
        assert.deepEqual(steps(await loopChat(said)), [
          ["decide_loop_next_action", { loop_id: id, current_score: n }],
        ], said);
      }
      const facts = newChat("probe6-facts");
      await facts("remember that I'm left-handed");
      assert.deepEqual(steps(await facts("oh wait, I'm right-handed actually")), [
        ["forget", { what: "I'm left-handed" }],
        ["remember", { fact: "I'm right-handed" }],
      ]);
      assert.deepEqual(steps(await facts("don't forget your keys!")), []);
      for (
        const message of [
          "bin this conversation",
          "could we clear this chat and start over",
          "forget we ever spoke",
        ]
      ) {
        assert.deepEqual(
          steps(await newChat("probe6-bin")(message)),
          [["forget_session", {}]],
          message,
        );
      }
      const recall = newChat("probe6-recall");
      await recall("time in Hobart");
      await recall("time in Darwin");
      assert.match(
        (await recall("which towns did I mention?")).summaryMessage!,
        /"time in Hobart"/,
      );
      assert.match((await recall("give me a quick summary")).summaryMessage!, /"time in Darwin"/);
      const home = newChat("probe6-home");
      await home("remember my hometown is Bergen");
      assert.deepEqual(steps(await home("what's the time in my hometown?")), [time("Bergen")]);
      const from = newChat("probe6-from");
      await from("hey, I'm Rui from Porto");
      assert.deepEqual(steps(await from("what's the time for me?")), [time("Porto")]);
      const zones = newChat("probe6-zones");
      assert.match(
        (await zones("time in UTC+5:30")).summaryMessage!,
        /^In UTC\+5:30 \(Asia\/Kolkata\)/,
      );
      assert.match(
        (await zones("what time is it in BST")).summaryMessage!,
        /more than one time zone: .*the UK.*Bangladesh/,
      );
      assert.deepEqual(steps(await zones("time in tromso")), [time("tromso")]);
    });

    await t.step("idioms with 'time' or 'loop' ask for neither", async () => {
      const say = newChat("idiom");
      for (
        const message of [
          "this tune is on a loop in my head",
          "time heals, they say",
          "what time is lunch at the office?",
          "what time is sunrise in Lisbon",
          "we had a lovely time in Porto",
          "how was your day?",
          "where has the time gone",
          "it's high time we started",
          "what days do we meet?",
        ]
      ) {
        const tools = steps(await say(message)).map(([tool]) => tool);
        assert.ok(
          !tools.includes("get_current_time") && !tools.includes("list_active_loops"),
          `${message}: ${tools}`,
        );
      }
      // The clock's time still is.
      assert.deepEqual(steps(await say("what's a good time to ring Sydney")), [time("Sydney")]);
    });
  } finally {
    await loop.close();
  }
});
