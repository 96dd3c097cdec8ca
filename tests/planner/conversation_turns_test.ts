/**
 * A newcomer's later turns, read with the ones before them (the offline
 * planner, the hashing embedder, PGlite, the shipped tools): comparisons with
 * the last answer, bare answers to the reply's own question, corrections of a
 * fact just kept, questions about a loop just named or about the chat itself,
 * and idioms that name a tool's word without asking for it. Each caller has
 * a memory and loops of their own, so no step sees another's.
 */
import assert from "node:assert/strict";
import tools from "../../functions/mcp-loop/tools.ts";
import { createLoop } from "../../shared/app/create_loop.ts";
import type { MCPResponse } from "../../shared/contracts.ts";
import { UNKNOWN_ABOUT_YOU_NOTE } from "../../shared/planner/planner_notes.ts";
import { initializedDataDir } from "../support/process.ts";

type Data = MCPResponse["data"];
type Step = [string, Record<string, unknown>];

Deno.test("later turns are read with the conversation before them", async (t) => {
  const loop = createLoop({
    tools,
    dataDir: await initializedDataDir(),
    env: { MCP_LOOP_LOG_LEVEL: "error" },
  });
  /** A caller of their own, in one chat: each call sends the next message. */
  const newChat = (name: string) => {
    const caller = { userId: null, owner: `key:${name}-${crypto.randomUUID()}` };
    const sessionId = `${name}-${crypto.randomUUID()}`;
    return async (content: string): Promise<Data> =>
      (await loop.run({ mode: "general", sessionId, messages: [{ role: "user", content }] }, {
        caller,
      })).data;
  };
  const steps = (data: Data): Step[] =>
    data.plan.filter((step) => step.tool !== "finalize_summary").map((step) => [
      step.tool,
      step.args,
    ]);
  const time = (place: string): Step => ["get_current_time", { time_zone: place }];
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

    await t.step("idioms with 'time' or 'loop' ask for neither", async () => {
      const say = newChat("idiom");
      for (
        const message of [
          "this tune is on a loop in my head",
          "time heals, they say",
          "what time is lunch at the office?",
          "what time is sunrise in Lisbon",
          "we had a lovely time in Porto",
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
