/**
 * A newcomer with nothing configured (the offline planner, the hashing
 * embedder, PGlite, the shipped tools) asks what people ask; each case is
 * tried in several wordings, the issue's own example among them. PGlite opens
 * a copy of a migrated folder, which saves the test a first start's initdb.
 */
import assert from "node:assert/strict";
import tools from "../../functions/mcp-loop/tools.ts";
import { createLoop } from "../../shared/app/create_loop.ts";
import type { MCPResponse } from "../../shared/contracts.ts";
import { LET_GO_NOTE, UNKNOWN_ABOUT_YOU_NOTE } from "../../shared/planner/planner_notes.ts";
import { initializedDataDir } from "../support/process.ts";

type Data = MCPResponse["data"];

Deno.test("a newcomer's everyday requests get the right tools and a readable reply", async (t) => {
  const loop = createLoop({
    tools,
    dataDir: await initializedDataDir(),
    // A step that fails on purpose (a loop id that does not exist) logs no warning here.
    env: { MCP_LOOP_LOG_LEVEL: "error" },
  });
  const session = `newcomer-${crypto.randomUUID()}`;
  const ask = async (content: string, sessionId = session): Promise<Data> =>
    (await loop.run({ mode: "general", sessionId, messages: [{ role: "user", content }] })).data;
  const toolsOf = (data: Data) => data.plan.map((step) => step.tool);
  /** Asks as a caller of its own (whose memory and loops no other step sees): one chat, or a new one each time. */
  const asOwnCaller = (name: string, { oneChat = false } = {}) => {
    const caller = { userId: null, owner: `key:${name}-${crypto.randomUUID()}` };
    const chat = `${name}-${crypto.randomUUID()}`;
    return async (content: string): Promise<Data> =>
      (await loop.run({
        mode: "general",
        sessionId: oneChat ? chat : `${name}-${crypto.randomUUID()}`,
        messages: [{ role: "user", content }],
      }, { caller })).data;
  };
  try {
    await t.step("a request no tool serves is said so, with what it can do instead", async () => {
      for (
        const message of [
          "What's the weather in Lisbon tomorrow?",
          "Will it rain in Porto this weekend?",
          "Book me a table for two tonight",
          // A read asked for by its verb, for a thing it does not hold: no loop listing.
          "list my sessions",
          "list my contacts please",
          // A change no tool makes runs no read on its topic either.
          "cancel my latest loop",
          "rename loop 0a1b2c3d to Draft",
          "pause the spec loop",
          // Sums are no tool's: "times" between two numbers is not the time.
          "what is 9 times 6?",
          "how much is 14 times 3",
          "what is 20 minus 4",
        ]
      ) {
        const data = await ask(message);
        assert.deepEqual(toolsOf(data), ["finalize_summary"], message);
        assert.match(data.summaryMessage!, /^None of my tools does that, so I did nothing\./);
        assert.match(data.summaryMessage!, /- get the current date, day and time in a place/);
      }
    });

    await t.step("places resolve to their time zone; an ambiguous one is said to be", async () => {
      const cases: [string, RegExp][] = [
        ["What time is it in India?", /^In India \(Asia\/Kolkata\) it is /],
        ["what's the time in Kenya", /^In Kenya \(Africa\/Nairobi\) it is /],
        ["Tell me the current time in Bengaluru", /^In Bengaluru \(Asia\/Kolkata\) it is /],
        ["time in Hyderabad, Pakistan", /^In Hyderabad Pakistan \(Asia\/Karachi\) it is /],
        ["What time is it in Australia?", /^"Australia" has more than one time zone: .* Perth\./],
        ["what time is it in Springfield", /more than one time zone: .*Massachusetts\./],
        ["which day is it today?", /^In UTC it is \w+day, /],
        ["what day is it", /^In UTC it is \w+day, /],
        // A place after "not" is what the writer does not mean.
        ["Sorry, I meant Lisbon, not Madrid. What time is it there?", /^In Lisbon /],
        // A change no tool makes, in another part of the message, does not stop the read.
        ["I must phone my sister in Kenya, what time is it there?", /^In Kenya /],
        ["Stop. What's the time in India?", /^In India /],
        ["text me the time in Kenya", /^In Kenya /],
        // Sending is no tool's, but what to send is a read's: the reply gives it.
        ["email my boss the time in India", /^In India /],
        ["please confirm the time in Kenya", /^In Kenya /],
        // The time asked in other words: the hour, the clock, the part of the day.
        ["which hour is it in Kenya right now?", /^In Kenya /],
        ["is it evening yet in India?", /^In India /],
        ["what does the clock say in Bengaluru", /^In Bengaluru /],
        // Abbreviations, regions and spellings Intl does not hold; a name typed in lower case.
        ["whats the time in NYC rn", /^In NYC \(America\/New_York\) it is /],
        ["time in sf please", /^In SF \(America\/Los_Angeles\) it is /],
        ["what time is it in Saskatchewan?", /^In Saskatchewan \(America\/Regina\) it is /],
        ["what time is it in Tasmania", /^In Tasmania \(Australia\/Hobart\) it is /],
        ["time in kathmandu", /^In Kathmandu \(Asia\/Kathmandu\) it is /],
        // Zones by their everyday names.
        ["what time is it on mountain time?", /^In Mountain Time \(America\/Denver\) it is /],
        ["time on the east coast now", /^In the East Coast \(America\/New_York\) it is /],
        ["what's the time in eastern europe", /^In Eastern Europe \(Europe\/Bucharest\) it is /],
        ["what time is it in Tennessee", /^"Tennessee" has more than one time zone: /],
        [
          "time in buenos aires pls",
          /^In Buenos Aires \(America\/(?:Argentina\/)?Buenos_Aires\) it is /,
        ],
        // The date or the year asked for, and "timezone" in one word.
        ["what's today's date in Apia?", /^In Apia \(Pacific\/Apia\) it is /],
        ["which year is it in Kiribati", /^"Kiribati" has more than one time zone/],
        // "Time" beside what is asked about the clock still asks it.
        ["is now a good time to ring Seoul?", /^In Seoul /],
        ["give me the time in Addis Ababa", /^In Addis Ababa /],
        ["what day is it right now in Noumea", /^In Noumea /],
        ["what timezone is Fiji in", /^In Fiji \(Pacific\/Fiji\) it is /],
        // Who asks is no place: "Carolina" says what the time in Quito is wanted by.
        ["Carolina asked me what time it is in Quito", /^In Quito /],
      ];
      for (const [message, reply] of cases) {
        const data = await ask(message);
        assert.deepEqual(toolsOf(data), ["get_current_time", "finalize_summary"], message);
        assert.match(data.summaryMessage!, reply, message);
      }
    });

    await t.step("the writer's own place is the one their memory keeps", async () => {
      const say = asOwnCaller("home");
      const nowhere = await say("what's the time where I live?");
      assert.deepEqual(nowhere.plan[0].args, {});
      await say("remember that I live in Windhoek");
      await say("remember that my brother lives in Hanoi");
      for (
        const message of [
          "what's the time where I live?",
          "is it late in my town",
          "local time here?",
        ]
      ) {
        const data = await say(message);
        assert.deepEqual(data.plan[0], {
          tool: "get_current_time",
          args: { time_zone: "Windhoek" },
          round: 1,
        }, message);
      }
      // "in here" is a room, not the writer's town.
      assert.deepEqual((await say("is it too dark in here?")).plan[0]?.args ?? {}, {});
      // A place the message names is the one asked.
      assert.deepEqual((await say("what time is it here in Quito?")).plan[0].args, {
        time_zone: "Quito",
      });
    });

    await t.step("several places in one question get a time each", async () => {
      const cases: [string, string[], RegExp][] = [
        ["what's the time in Lisbon, Manila and Oslo?", ["Lisbon", "Manila", "Oslo"], /Oslo/],
        ["time in Chicago and in Cape Town", ["Chicago", "Cape Town"], /Africa\/Johannesburg/],
        // The same place twice is asked once; a connective is not part of a place.
        ["time in Vienna, Austria and in Vienna", ["Vienna Austria"], /Europe\/Vienna/],
        ["time in Springfield and Madrid", ["Springfield", "Madrid"], /more than one time zone/],
        // Only a list is spread: a place named elsewhere, or a name, is not asked about.
        ["I'm based in Berlin; what's the time in Chicago?", ["Chicago"], /America\/Chicago/],
        ["I live in Oslo, what time is it in Denver", ["Denver"], /America\/Denver/],
        ["Our office is in Tokyo; what time is it in Cairo?", ["Cairo"], /Africa\/Cairo/],
        ["what time is it in Lagos for my colleague Jordan?", ["Lagos"], /Africa\/Lagos/],
        ["time in Denver, New York and Dublin", ["Denver", "New York", "Dublin"], /Dublin/],
        // A city after a comma is another place; a region or a country tells a place apart.
        ["What time is it in Lyon, Marseille?", ["Lyon", "Marseille"], /Marseille/],
        ["time in Houston, Texas please", ["Houston Texas"], /America\/Chicago/],
        // Compared, places first.
        ["how many hours is Seoul ahead of Perth?", ["Seoul", "Perth"], /Australia\/Perth/],
        ["is Athens ahead of Dublin?", ["Athens", "Dublin"], /Europe\/Dublin/],
        // Another part asking for the time again, in its own words, adds its place.
        ["Tell me the time in Accra. Also, what time is it in Quito?", ["Accra", "Quito"], /Quito/],
        ["Give me the date in Seoul; and the time in Perth?", ["Seoul", "Perth"], /Perth/],
        // A place in a part that asks nothing is not asked about, where another part asks.
        ["Flying out of Oslo tomorrow, what time is it in Lima?", ["Lima"], /America\/Lima/],
        ["What time is it in Oslo? My aunt lives in Perth.", ["Oslo"], /Europe\/Oslo/],
        // A person's name that is also a country's is no place when another is named.
        ["what's the time for my cousin Chad in Madrid?", ["Madrid"], /Europe\/Madrid/],
        // "called" names a person only after a word for one.
        [
          "the time in Oslo, and the time in the town called Lima?",
          ["Oslo", "Lima"],
          /America\/Lima/,
        ],
        ["My neighbour Jordan moved to Quito; what time is it there?", ["Quito"], /Guayaquil/],
        // Cities of one zone are still several places; a town named like a known city, by its region.
        ["time in Venice, Florence and Turin", ["Venice", "Florence", "Turin"], /Turin/],
        ["what time is it in Naples, Florida?", ["Naples Florida"], /America\/New_York/],
        ["time in Durban, South Africa", ["Durban South Africa"], /Africa\/Johannesburg/],
        // The time asked by what it is for: too late, a meal, a day, an hour on the clock.
        ["Is it too late to ring Seoul?", ["Seoul"], /Asia\/Seoul/],
        ["is it dinnertime in Rome yet?", ["Rome"], /Europe\/Rome/],
        ["is it 9am in Denver already?", ["Denver"], /America\/Denver/],
        ["Is it Sunday in Auckland?", ["Auckland"], /Pacific\/Auckland/],
        // A comparison asks both places.
        ["how many hours behind is Denver from Boston?", ["Denver", "Boston"], /New_York/],
        ["time in Cairo versus Lagos", ["Cairo", "Lagos"], /Africa\/Lagos/],
        ["how many hours ahead of Lima is Madrid?", ["Lima", "Madrid"], /Europe\/Madrid/],
        ["what's the time in Seoul, and how far ahead is it from Rome?", ["Seoul", "Rome"], /Rome/],
        ["would it be too late to phone Quito now?", ["Quito"], /Guayaquil/],
        ["is it 11 p.m. in Manila?", ["Manila"], /Asia\/Manila/],
        ["is it morning or evening in Denver?", ["Denver"], /America\/Denver/],
        ["would it still be evening in Hanoi?", ["Hanoi"], /Asia\/Ho_Chi_Minh|Asia\/Bangkok/],
        ["is it 4 in the morning in Nairobi?", ["Nairobi"], /Africa\/Nairobi/],
        ["is it 9 already in Accra?", ["Accra"], /Africa\/Accra|Africa\/Abidjan/],
        ["how many hours later is it in Karachi?", ["Karachi"], /Asia\/Karachi/],
      ];
      for (const [message, places, reply] of cases) {
        const data = await ask(message);
        assert.deepEqual(
          data.plan.map((step) => step.args.time_zone).filter(Boolean),
          places,
          message,
        );
        // A line per place; then, for two or more with one zone each, the hours between them.
        const lines = data.summaryMessage!.split("\n");
        const between = lines.length === places.length + 1;
        assert.ok(between || lines.length === places.length, message);
        if (between) {
          assert.match(lines.at(-1)!, / (?:ahead of|behind) | have the same time/, message);
        }
        assert.match(data.summaryMessage!, reply, message);
      }
    });

    await t.step("a follow-up asks the last question again, of what it names", async () => {
      const chat = `follow-${crypto.randomUUID()}`;
      const zonesOf = (data: Data) => data.plan.map((step) => step.args.time_zone).filter(Boolean);
      assert.deepEqual(zonesOf(await ask("What's the time in Nairobi?", chat)), ["Nairobi"]);
      assert.deepEqual(zonesOf(await ask("and in Accra?", chat)), ["Accra"]);
      // A follow-up of a follow-up asks what the last real question asked.
      const both = await ask("ok, what about Lima and Dakar?", chat);
      assert.deepEqual(zonesOf(both), ["Lima", "Dakar"]);
      assert.match(both.summaryMessage!, /America\/Lima[^]*Africa\/Dakar/);
      // In lower case, without a question mark, after "ok".
      assert.deepEqual(zonesOf(await ask("time in harare", chat)), ["harare"]);
      assert.deepEqual(zonesOf(await ask("and kigali", chat)), ["kigali"]);
      assert.deepEqual(zonesOf(await ask("ok and in maputo", chat)), ["maputo"]);
      // A correction asks again of what it names; "again" asks again as it was.
      assert.deepEqual(zonesOf(await ask("time in Quito", chat)), ["Quito"]);
      assert.deepEqual(zonesOf(await ask("oops, I meant guayaquil", chat)), ["guayaquil"]);
      assert.deepEqual(zonesOf(await ask("no, in Bogota", chat)), ["Bogota"]);
      assert.deepEqual(zonesOf(await ask("once more please", chat)), ["Bogota"]);
      // An answer to "say which one you mean": the place alone.
      assert.match((await ask("time in Mexico", chat)).summaryMessage!, /more than one time zone/);
      assert.deepEqual(zonesOf(await ask("cancun specifically", chat)), ["cancun"]);
      // A write is never done again on "again".
      const askOwn = asOwnCaller("again", { oneChat: true });
      await askOwn("start a plan loop");
      assert.deepEqual(toolsOf(await askOwn("do it again")), ["finalize_summary"]);
      // The answer to "I need the loop type" starts the loop asked for.
      assert.match((await askOwn("open a new loop")).summaryMessage!, /I need the loop type/);
      assert.deepEqual((await askOwn("a spec one, please")).plan[0].args, { loop_type: "spec" });
      // "and …" that says something is no value.
      for (const message of ["and so on", "and you?", "and then?", "and Chidi says hello"]) {
        assert.deepEqual(toolsOf(await ask(message, chat)), ["finalize_summary"], message);
      }
      // Nothing new named, or a statement: nothing asked again.
      assert.deepEqual(toolsOf(await ask("how about that?", chat)), ["finalize_summary"]);
      assert.deepEqual(toolsOf(await ask("And I live in Bergen", chat)), ["finalize_summary"]);
      // A remark that opens with "And", or a question about a person, is no follow-up.
      assert.deepEqual(toolsOf(await ask("And Lisbon was lovely", chat)), ["finalize_summary"]);
      assert.deepEqual(toolsOf(await ask("what about my aunt Georgia?", chat)), [
        "finalize_summary",
      ]);
      // A question worded as a follow-up that asks by its own words is the one followed up.
      const fresh = `follow-${crypto.randomUUID()}`;
      await ask("list my loops", fresh);
      assert.deepEqual(zonesOf(await ask("how about the time in Perth?", fresh)), ["Perth"]);
      assert.deepEqual(zonesOf(await ask("and Dakar?", fresh)), ["Dakar"]);
      // Past a turn that asked nothing.
      await ask("thank you!", fresh);
      assert.deepEqual(zonesOf(await ask("and in Hanoi?", fresh)), ["Hanoi"]);
      // In one message, a part that follows up another.
      const one = await ask("Is it night in Honolulu yet? And what about Denver?");
      assert.deepEqual(zonesOf(one), ["Honolulu", "Denver"]);
      // A listing asked by a verb the time tool shares ("display") does not stop the question's read.
      const listed = await ask("display my loops. What's the time in Lima?");
      assert.deepEqual(toolsOf(listed), [
        "list_active_loops",
        "get_current_time",
        "finalize_summary",
      ]);
      const twoReads = await ask("give me the time in Quito and list my loops");
      assert.deepEqual(toolsOf(twoReads), [
        "get_current_time",
        "list_active_loops",
        "finalize_summary",
      ]);
      // Two things after one verb, whichever verb of reading it is; a comma before "and".
      for (
        const message of [
          "pull up my loops and the time in Manila",
          "give me my loops and the time in Manila",
          "list the time in Manila and my loops",
          "show me my loops, and the time in Manila",
        ]
      ) {
        const oneVerb = await ask(message);
        assert.deepEqual(new Set(toolsOf(oneVerb)), new Set(toolsOf(twoReads)), message);
        assert.deepEqual(zonesOf(oneVerb), ["Manila"], message);
      }
      // The time as written beside a request, and a question after ", and".
      for (
        const message of [
          "record a score of 70 for loop 0a0b0c0d. Is it 5:30 in Lagos?",
          "list my loops, and what hour is it in Lagos?",
        ]
      ) {
        assert.deepEqual(zonesOf(await ask(message)), ["Lagos"], message);
      }
      // A loop's status is no listing of loops.
      const status = await ask("show me the status of loop 0f1e2d3c and the time in Manila");
      assert.deepEqual(toolsOf(status), [
        "get_loop_status",
        "get_current_time",
        "finalize_summary",
      ]);
    });

    await t.step("a follow-up after thanks, a value asked again, and 'there'", async () => {
      const zonesOf = (data: Data) => data.plan.map((step) => step.args.time_zone).filter(Boolean);
      const chat = `again-${crypto.randomUUID()}`;
      assert.deepEqual(zonesOf(await ask("time in Kigali and Hanoi please", chat)), [
        "Kigali",
        "Hanoi",
      ]);
      assert.deepEqual(zonesOf(await ask("Perfect, thank you. What about Dakar?", chat)), [
        "Dakar",
      ]);
      assert.deepEqual(zonesOf(await ask("cheers! And in Harare, please.", chat)), ["Harare"]);
      assert.deepEqual(zonesOf(await ask("ok. and Maputo? Bye!", chat)), ["Maputo"]);
      // A value asked before is asked again.
      assert.deepEqual(zonesOf(await ask("and Hanoi?", chat)), ["Hanoi"]);
      // "there" is the place said in an earlier message.
      const there = `there-${crypto.randomUUID()}`;
      await ask("My cousin is studying in Montevideo.", there);
      assert.deepEqual(zonesOf(await ask("is it late there?", there)), ["Montevideo"]);
      // The latest sentence that names one.
      await ask("I grew up in Oslo. These days my brother works in Lima.", there);
      assert.deepEqual(zonesOf(await ask("what's the time there now?", there)), ["Lima"]);
      // Not "is there …", "hi there", "there's", nor a person's name, nor where the message names
      // its own place.
      assert.deepEqual(zonesOf(await ask("is there a loop I should finish?", there)), []);
      const greeted = `there-${crypto.randomUUID()}`;
      await ask("My colleague Georgia flew to Dakar.", greeted);
      assert.deepEqual(zonesOf(await ask("hey there! what time is it?", greeted)), []);
      assert.deepEqual(zonesOf(await ask("Hello, there! What time is it?", greeted)), []);
      assert.deepEqual(
        zonesOf(await ask("there's a loop to finish; what time is it?", greeted)),
        [],
      );
      assert.deepEqual(zonesOf(await ask("what's the hour over there?", greeted)), ["Dakar"]);
      // The last place the sentence names.
      await ask("We drove from Porto to Seville.", greeted);
      assert.deepEqual(zonesOf(await ask("is it late there?", greeted)), ["Seville"]);
      // A name said otherwise than as where someone is, or an idiom, is no place there.
      const names = `there-${crypto.randomUUID()}`;
      await ask("Chad phoned me this morning. Jordan wrote too.", names);
      assert.deepEqual(zonesOf(await ask("what time is it there?", names)), []);
      await ask("My brother is staying in Hobart.", names);
      assert.deepEqual(zonesOf(await ask("are we there yet? what's the time?", names)), []);
      assert.deepEqual(zonesOf(await ask("She moved to Perth, is it night there?", there)), [
        "Perth",
      ]);
      // "is it night?" asks the time; it is not a farewell.
      const night = await ask("is it night yet?", `night-${crypto.randomUUID()}`);
      assert.deepEqual(toolsOf(night), ["get_current_time", "finalize_summary"]);
    });

    await t.step("a part of the day or a count of hours does not ask the time", async () => {
      for (
        const message of [
          "this morning was rough",
          "in the evening I read a book",
          "it took 3 hours and 10 minutes",
          "how many hours did I log this week?",
          "good afternoon, hope you're well",
          "how was your evening?",
          "remind me tomorrow night to call Lima",
          "Is there a clock shop in Bern?",
          "why is it dark in Oslo all winter?",
          "is it a two hour flight to Lisbon?",
          "which clock tower is the tallest in Bern?",
          "Is it Friday's meeting that moved?",
          "how far is Lisbon from Porto?",
          // What follows says it is not the time: a reason, a thing, another question.
          "is it too early to judge the draft?",
          "is it too late for a discount?",
          "is it holiday traffic or weekend traffic?",
          "is it Tuesday's release we are shipping?",
          "how many hours behind plan is the release?",
          "compute 7 times 3 for me",
          // A number is a count, a weekday or a part of the day "in the" something is a schedule.
          "is it 3 in the queue?",
          "would it be 12 in total?",
          "is it Thursday in the release plan?",
          "is it early in the sprint to refactor?",
          "how late is it open tonight?",
          "how far behind is the backend team?",
          "how far apart are Madrid and Seville?",
          // "Time" that is not the clock's, or the time of something else.
          "what is the time complexity of mergesort?",
          "will the bus be on time?",
          "do I have time for a coffee?",
          "what time does the pharmacy open?",
          "what time is the standup tomorrow?",
        ]
      ) {
        assert.ok(!toolsOf(await ask(message)).includes("get_current_time"), message);
      }
    });

    await t.step("small talk gets the greeting, not the list of what no tool does", async () => {
      for (
        const message of ["how's it going?", "What's up", "nice to meet you!", "good to see you"]
      ) {
        const data = await ask(message);
        assert.deepEqual(toolsOf(data), ["finalize_summary"], message);
        assert.match(data.summaryMessage!, /^Hello! /, message);
      }
      for (const message of ["have a lovely weekend", "good night!", "see you soon"]) {
        const farewell = await ask(message);
        assert.deepEqual(toolsOf(farewell), ["finalize_summary"], message);
        assert.equal(farewell.summaryMessage, "Goodbye!", message);
      }
      // A lone "what?" is no greeting.
      assert.doesNotMatch((await ask("what?")).summaryMessage!, /^Hello! /);
      // Chat shorthand for the same.
      assert.match((await ask("hiii")).summaryMessage!, /^Hello! /);
      assert.equal((await ask("ty!")).summaryMessage, "You're welcome.");
      assert.equal((await ask("gn all")).summaryMessage, "Goodbye!");
      // Declining is letting it go.
      assert.equal((await ask("nah, no thanks")).summaryMessage, LET_GO_NOTE);
      // An acknowledgement is not a hello.
      for (const message of ["ok", "perfect!", "great, cool", "ok then", "good job!", "sweet"]) {
        assert.match((await ask(message)).summaryMessage!, /^Glad to help\./, message);
      }
    });

    await t.step("'what can you do' lists the tools in words", async () => {
      for (const message of ["What can you do?", "which tools do you have?", "How can you help?"]) {
        const data = await ask(message);
        assert.deepEqual(toolsOf(data), ["finalize_summary"], message);
        for (
          const line of [
            "- get the current date, day and time in a place (get_current_time)",
            "- list your 10 most recent refinement loops, newest first, with status and scores (list_active_loops)",
            "- remember something about you across conversations (remember)",
          ]
        ) assert.ok(data.summaryMessage!.includes(line), `${message}: ${line}`);
      }
      // A request beside the question runs too; the reply answers both.
      const both = await ask("what are your capabilities, and what's the time in Taipei?");
      assert.deepEqual(toolsOf(both), ["get_current_time", "finalize_summary"]);
      assert.match(both.summaryMessage!, /^In Taipei [^]*\nI choose among my tools/);
    });

    await t.step("casual wording plans no write; an imperative with its object does", async () => {
      for (
        const message of [
          "Can you help me plan my week?",
          "I need a plan for my trip",
          "the spec loop idea sounds good",
        ]
      ) {
        const data = await ask(message);
        assert.ok(!toolsOf(data).includes("initialize_refinement_loop"), message);
      }
      const listed = await ask("List my refinement loops");
      assert.equal(listed.summaryMessage, "You have no refinement loops yet.");
    });

    const started = await ask("Start a spec refinement loop");
    const id = (started.intermediateResults[0].output as { id: string }).id;

    await t.step("recording a score runs that write alone, and says what it decided", async () => {
      for (
        const [message, score] of [[`Record a score of 70 for loop ${id}`, 70], [
          `log 75 as the score of loop ${id}`,
          75,
        ]] as const
      ) {
        const data = await ask(message);
        assert.deepEqual(toolsOf(data), ["decide_loop_next_action", "finalize_summary"], message);
        assert.match(data.summaryMessage!, new RegExp(`^Loop ${id} scored ${score}`));
      }
      // Just after a loop is started, a score without an id is the new loop's.
      // A caller of its own: the other steps count this caller's loops.
      const askOwn = asOwnCaller("scorer", { oneChat: true });
      const started = await askOwn("start a plan loop");
      const newId = started.plan[0].args.loop_id ??
        /id ([0-9a-f]{8})/.exec(started.summaryMessage!)![1];
      const scored = await askOwn("log a score of 64");
      assert.deepEqual(scored.plan[0], {
        tool: "decide_loop_next_action",
        args: { loop_id: newId, current_score: 64 },
        round: 1,
      });
      // Not after another reply, nor for a loop it names otherwise.
      await askOwn("what time is it in Oslo?");
      assert.match((await askOwn("log a score of 66")).summaryMessage!, /I need the loop id/);
    });

    await t.step("listings read as one line per item", async () => {
      // "specs": a value the loop tools take, so the loop listing serves it.
      for (const message of ["List my refinement loops", "show me my loops", "list my specs"]) {
        const data = await ask(message);
        assert.deepEqual(toolsOf(data), ["list_active_loops", "finalize_summary"], message);
        assert.equal(
          data.summaryMessage,
          `You have 1 refinement loop, newest first:\n- ${id} (spec) is being refined, ` +
            "last score 75 (85 needed; scores so far 70, 75), iteration 2 of 5",
        );
      }
    });

    await t.step("everyday ways of saying 'remember' keep the fact for later", async () => {
      for (
        const [message, fact] of [
          ["My name is Ana, please remember that", "My name is Ana"],
          ["I cycle to work — keep that in mind", "I cycle to work"],
          ["For future reference, my team is Platform", "my team is Platform"],
          // Thanks or a farewell after the ask is not part of the fact.
          ["remember that my locker is 42, thank you!", "my locker is 42"],
          // …unless the fact is what someone says.
          ["remember that my nephew always says hi, bye", "my nephew always says hi, bye"],
        ]
      ) {
        const data = await ask(message);
        assert.deepEqual(data.plan[0], { tool: "remember", args: { fact }, round: 1 }, message);
        assert.equal(
          data.summaryMessage,
          `I will remember "${fact}" in your later conversations too.`,
        );
      }
      // Other ways of asking to keep it, and shorthand.
      for (
        const [message, fact] of [
          ["could you save that my dentist is Dr Osei", "my dentist is Dr Osei"],
          ["jot down that I'm on call next week", "I'm on call next week"],
          ["add to memory that our wifi is Orchard5", "our wifi is Orchard5"],
          ["going forward, remember I prefer short answers", "I prefer short answers"],
          ["save this fact: my size is 42", "my size is 42"],
          ["pls remember that I'm in Lagos", "I'm in Lagos"],
          // Read spelled out, kept as typed.
          ["rememeber that my cat's name is Ur", "my cat's name is Ur"],
          ["pls remember my convo w/ Ana is at 5", "my convo w/ Ana is at 5"],
        ]
      ) {
        const data = await ask(message, `keep-${crypto.randomUUID()}`);
        assert.deepEqual(data.plan[0], { tool: "remember", args: { fact }, round: 1 }, message);
      }
      // Forgotten in the same shorthand, it is found.
      const shorthand = await ask("forget my convo w/ Ana", `keep-${crypto.randomUUID()}`);
      assert.deepEqual(shorthand.plan[0].args, { what: "my convo w/ Ana" });
      assert.equal(shorthand.summaryMessage, 'I forgot "my convo w/ Ana is at 5".');
      // A question about the tool names no fact: it is told what the tools do.
      for (const message of ["could you store information?", "can u forget stuff"]) {
        const data = await ask(message);
        assert.deepEqual(toolsOf(data), ["finalize_summary"], message);
        assert.match(data.summaryMessage!, /^I choose among my tools/, message);
      }
      // "save that" before no clause about the writer is no fact.
      assert.notEqual((await ask("save that draft")).plan[0].tool, "remember");
      // "… too" keeps the fact the message before asked to keep, or the message itself.
      const too = `too-${crypto.randomUUID()}`;
      await ask("remember that the plumber comes Friday", too);
      const again = await ask("keep that in mind too", too);
      assert.deepEqual(again.plan[0].args, { fact: "the plumber comes Friday" });
      const later = await ask("What is my name?", `later-${crypto.randomUUID()}`);
      assert.match(later.summaryMessage!, /You asked me to remember: "My name is Ana"/);
      for (
        const message of [
          "wipe your memory, cheers",
          "forget everything about me. Bye!",
          "wipe your memory, thanks, have a good evening",
        ]
      ) {
        const data = await ask(message, `wipe-${crypto.randomUUID()}`);
        assert.deepEqual(data.plan[0].args, { everything: true }, message);
      }
    });

    await t.step("a question about the memory lists what it holds", async () => {
      // A caller of its own, whose memory holds nothing yet; each message in a new chat.
      const tell = asOwnCaller("newcomer");
      const empty = await tell("what do you remember about me?");
      assert.deepEqual(toolsOf(empty), ["finalize_summary"]);
      assert.match(empty.summaryMessage!, /^I remember nothing about you yet\. Say "remember that/);
      const facts = ["I teach chemistry", "my bike is blue", "I'm vegetarian"];
      for (const fact of facts) await tell(`please remember that ${fact}`);
      for (
        const message of [
          "What do you know about me?",
          "ok, anything you've stored so far?",
          "can you show me what's in your memory",
          "what have I asked you to remember?",
          "cheers! what have you learned about me so far?",
          "thanks, what do you remember about me?",
          "Which details have you saved? Be brief.",
          "do you have anything stored on me?",
          "what's saved about me?",
          "what do you still remember about me",
          "bring up my saved facts",
        ]
      ) {
        const data = await tell(message);
        assert.deepEqual(toolsOf(data), ["finalize_summary"], message);
        assert.equal(
          data.summaryMessage,
          ["You asked me to remember:", ...facts.map((fact) => `- "${fact}"`)].join("\n"),
          message,
        );
      }
      // A request beside it is no pleasantry: it runs; what a tool could store is no question
      // about the memory.
      const beside = await tell("What do you know about me? List my loops.");
      assert.ok(toolsOf(beside).includes("list_active_loops"));
      // And the reply answers both: the step's sentence, then the whole memory.
      const alongside = await tell("Which details have you saved about me? And the time in Accra?");
      // Whatever the request beside it, and after a comma too.
      for (
        const [message, tool] of [
          ["What have you saved about me? And what day is it in Apia?", "get_current_time"],
          ["what do you remember about me, and what's the time in Hobart?", "get_current_time"],
          ["show me what you know about me, then list my loops", "list_active_loops"],
        ]
      ) {
        const data = await tell(message);
        assert.deepEqual(toolsOf(data), [tool, "finalize_summary"], message);
        assert.match(
          data.summaryMessage!,
          /\nYou asked me to remember:\n- "I teach chemistry"/,
          message,
        );
      }
      // Asked as what the user told it to remember, beside a request: both too.
      // "and" before a request's verb, without a comma.
      const anded = await tell("what have you got on me and show my loops");
      assert.deepEqual(toolsOf(anded), ["list_active_loops", "finalize_summary"]);
      assert.match(anded.summaryMessage!, /\nYou asked me to remember:\n- "I teach chemistry"/);
      const asked = await tell("what have I asked you to remember? Then list my loops.");
      assert.deepEqual(toolsOf(asked), ["list_active_loops", "finalize_summary"]);
      assert.match(asked.summaryMessage!, /\nYou asked me to remember:\n- "I teach chemistry"/);
      assert.deepEqual(toolsOf(alongside), ["get_current_time", "finalize_summary"]);
      assert.match(alongside.summaryMessage!, /^In Accra \(Africa\/Accra\) it is /);
      assert.ok(
        alongside.summaryMessage!.endsWith(
          ["You asked me to remember:", ...facts.map((fact) => `- "${fact}"`)].join("\n"),
        ),
        alongside.summaryMessage,
      );
      for (const message of ["what can you store?", "what did you learn?"]) {
        assert.doesNotMatch((await tell(message)).summaryMessage!, /^You asked me to remember/);
      }
      // A topic is matched by its words, not listed whole.
      const topic = await tell("what do you remember about my bike?");
      assert.equal(topic.summaryMessage, 'You asked me to remember: "my bike is blue".');
      // Changed beside the question, the memory is listed as the change left it.
      const changed = await tell("what have you stored about me? Also forget that my bike is blue");
      assert.deepEqual(toolsOf(changed), ["forget", "finalize_summary"]);
      assert.equal(
        changed.summaryMessage,
        'I forgot "my bike is blue".\nYou asked me to remember: "I teach chemistry" and "I\'m vegetarian".',
      );
    });

    await t.step(
      "a question quotes only what is about the writer, or says it is not known",
      async () => {
        const tell = asOwnCaller("whose");
        await tell("remember that my uncle's car is a green Lada");
        await tell("remember that my flat number is 12");
        // Someone else's is not the writer's; the assistant's is not the writer's either.
        for (const message of ["what's my car?", "what is your number?", "how does this work?"]) {
          const data = await tell(message);
          assert.doesNotMatch(data.summaryMessage!, /You asked me to remember/, message);
        }
        assert.equal(
          (await tell("what's my car?")).summaryMessage,
          UNKNOWN_ABOUT_YOU_NOTE,
        );
        assert.equal(
          (await tell("what's my uncle's car?")).summaryMessage,
          'You asked me to remember: "my uncle\'s car is a green Lada".',
        );
        assert.equal(
          (await tell("what is my flat number?")).summaryMessage,
          'You asked me to remember: "my flat number is 12".',
        );
      },
    );

    await t.step("a question about earlier messages shows the ones on its topic", async () => {
      const topic = `recall-${crypto.randomUUID()}`;
      for (
        const said of [
          "I'm flying to Tokyo in May",
          "Is Tokyo expensive for food?",
          "My aunt lives in Osaka",
        ]
      ) await ask(said, topic);
      const tokyo = await ask("What did I ask you earlier about Tokyo?", topic);
      assert.equal(
        tokyo.summaryMessage,
        'Earlier you wrote about Tokyo:\n- "I\'m flying to Tokyo in May"\n- "Is Tokyo expensive for food?"',
      );
      // A question about the whole conversation ("so far") brings back its latest messages.
      const overview = await ask("what have we been talking about so far?", topic);
      assert.match(overview.summaryMessage!, /^Earlier we wrote:\n/);
      assert.match(overview.summaryMessage!, /- you: "My aunt lives in Osaka"/);
      const osaka = await ask("remind me what I said about Osaka", topic);
      assert.equal(
        osaka.summaryMessage,
        'Earlier you wrote about Osaka:\n- "My aunt lives in Osaka"',
      );
    });

    await t.step(
      "'it' and 'that loop' mean the loop the reply just named; a listing is not guessed from",
      async () => {
        const chat = `pointing-${crypto.randomUUID()}`;
        // "set up": a verb of two words asks as the one-word verb does.
        const started = await ask("could you set up a build plan loop", chat);
        assert.deepEqual(started.plan[0], {
          tool: "initialize_refinement_loop",
          args: { loop_type: "build_plan" },
          round: 1,
        });
        const id = (started.intermediateResults[0].output as { id: string }).id;
        const scored = await ask("record a score of 64 for it", chat);
        assert.deepEqual(scored.plan[0], {
          tool: "decide_loop_next_action",
          args: { loop_id: id, current_score: 64 },
          round: 1,
        });
        const status = await ask("what is the status of that loop now?", chat);
        assert.deepEqual(status.plan[0], {
          tool: "get_loop_status",
          args: { loop_id: id },
          round: 1,
        });
        // Naming no loop at all, it is the one the latest reply named.
        const implied = await ask("record a score of 70", chat);
        assert.deepEqual(implied.plan[0].args, { loop_id: id, current_score: 70 });
        // A reply naming none since: the id is asked for, not taken from further back.
        await ask("thanks!", chat);
        const unsure = await ask("record a score of 72", chat);
        assert.deepEqual(toolsOf(unsure), ["finalize_summary"]);
        assert.match(unsure.summaryMessage!, /I need the loop id/);
        // After a listing of two loops, "it" could be either: asked for too.
        const startedSpec = await ask("start a spec loop", chat);
        await ask("list my loops", chat);
        const ambiguous = await ask("score it 88", chat);
        assert.match(ambiguous.summaryMessage!, /I need the loop id/);
        // Another loop than the one just named, or a number of the user's own: asked for too.
        await ask("start a plan loop", chat);
        // A word only one loop type has names it; a word two share is asked about.
        const code = await ask("open a new code loop", `code-${crypto.randomUUID()}`);
        assert.deepEqual(code.plan[0].args, { loop_type: "build_code" });
        const build = await ask("begin a build loop", `build-${crypto.randomUUID()}`);
        assert.match(build.summaryMessage!, /I need the loop type/);
        // The word must name the loop's type, not something else the message mentions.
        const memo = await ask(
          "start a loop for the dress code memo",
          `memo-${crypto.randomUUID()}`,
        );
        assert.match(memo.summaryMessage!, /I need the loop type/);
        const other = await ask("record a score of 90 for my other loop", chat);
        assert.match(other.summaryMessage!, /I need the loop id/);
        // Named by its type, the one loop of that type this chat started.
        const spec = await ask("record a score of 90 for the spec loop", chat);
        assert.deepEqual(spec.plan[0].args, {
          loop_id:
            /spec refinement loop with id ([0-9a-f]{8})/.exec(startedSpec.summaryMessage!)![1],
          current_score: 90,
        });
        const own = `own-${crypto.randomUUID()}`;
        await ask("my booking reference is 20240611", own);
        assert.match((await ask("score it 91", own)).summaryMessage!, /I need the loop id/);
      },
    );

    await t.step("everyday ways of deleting this conversation reach forget_session", async () => {
      for (
        const message of [
          "Please delete this conversation",
          "erase our chat",
          // Verbs of more than one word.
          "could you get rid of this thread",
          "throw away this conversation",
          // No article, a wish, shorthand, or all that was said.
          "erase thread",
          "I'd like our chat wiped",
          "delete this convo pls",
          "could you erase everything we discussed in this chat",
          "I'd like to start fresh, delete this thread",
        ]
      ) {
        const data = await ask(message, `doomed-${crypto.randomUUID()}`);
        assert.equal(data.plan[0].tool, "forget_session", message);
        // Deleting is destructive: it waits for a person's approval.
        assert.equal(data.stopReason, "approval_required", message);
      }
    });

    await t.step(
      "everyday ways of clearing the memory forget everything, once approved",
      async () => {
        for (
          const message of [
            "forget everything",
            "please forget everything, thanks",
            "wipe whatever you've stored about me",
            "erase what you remember",
            "delete all of my saved details",
            "forget my facts, please",
            "forget everything I've told you",
            "stop remembering stuff about me",
            "delete all the info you have on me",
            // Starting over is no part of what to forget.
            "let's start from scratch and forget everything",
            "start over, forget what you know",
          ]
        ) {
          const data = await ask(message, `wipe-${crypto.randomUUID()}`);
          assert.deepEqual(
            data.plan[0],
            { tool: "forget", args: { everything: true }, round: 1 },
            message,
          );
          assert.equal(data.stopReason, "approval_required", message);
        }
        // One thing, a topic, or the conversation is not the whole memory.
        const one = await ask("forget that my cat is called Miso", `wipe-${crypto.randomUUID()}`);
        assert.deepEqual(one.plan[0].args, { what: "my cat is called Miso" });
        // A topic is what to forget, the words around it left out.
        for (
          const [message, what] of [
            ["forget everything about Lisbon", "Lisbon"],
            ["forget what you know about my landlord", "my landlord"],
            ["forget that I said my desk is by the window", "my desk is by the window"],
          ]
        ) {
          const data = await ask(message, `wipe-${crypto.randomUUID()}`);
          assert.deepEqual(data.plan[0], { tool: "forget", args: { what }, round: 1 }, message);
        }
        const chat = await ask("forget everything we discussed", `wipe-${crypto.randomUUID()}`);
        assert.equal(chat.plan[0].tool, "forget_session");
      },
    );

    await t.step("'never mind' drops the request: no step, no list of tools", async () => {
      for (
        const message of ["never mind", "oh, forget it", "scratch that, thanks", "nevermind then"]
      ) {
        const data = await ask(message);
        assert.deepEqual(toolsOf(data), ["finalize_summary"], message);
        assert.equal(data.summaryMessage, LET_GO_NOTE, message);
      }
      // With a request after it, the request runs ("forget it all" says "drop it" too).
      for (
        const message of [
          "forget it, what's the time in Nairobi?",
          "forget it all, what time is it in Lima?",
        ]
      ) {
        assert.deepEqual(toolsOf(await ask(message)), ["get_current_time", "finalize_summary"]);
      }
      // "forget that" just after keeping a fact forgets that fact.
      const chat = `nm-${crypto.randomUUID()}`;
      await ask("please remember that my gym day is Tuesday", chat);
      const pointed = await ask("forget that", chat);
      assert.deepEqual(pointed.plan[0].args, { what: "my gym day is Tuesday" });
      assert.match(pointed.summaryMessage!, /^I forgot "my gym day is Tuesday"/);
      // Taken back first, what follows is the request.
      const instead = await ask(
        "oh never mind. Remember that my locker is 17",
        `nm-${crypto.randomUUID()}`,
      );
      assert.deepEqual(instead.plan[0].args, { fact: "my locker is 17" });
      const memory = await ask(
        "no worries - what do you know about me?",
        `nm-${crypto.randomUUID()}`,
      );
      assert.match(memory.summaryMessage!, /"my locker is 17"/);
      // Taken back at the end, nothing runs: no fact forgotten, no memory cleared.
      for (
        const message of [
          "forget that my cat is called Miso, never mind",
          "wipe your memory. Actually, scratch that.",
          "list my loops... oh, forget it",
          "what do you know about me? Never mind.",
          "forget I mentioned it",
          "never mind, I sorted it out",
          "nvm, got it",
          // "Never mind" may name what it drops.
          "never mind this",
          "nevermind about my loops",
          "never mind what I asked about Oslo then",
          "just forget it all",
        ]
      ) {
        const data = await ask(message);
        assert.deepEqual(toolsOf(data), ["finalize_summary"], message);
        assert.equal(data.summaryMessage, LET_GO_NOTE, message);
      }
      // What it names is dropped; the request after it runs alone.
      for (
        const message of ["never mind my loops, the time in Accra?", "nvm the score. Time in Apia"]
      ) {
        assert.deepEqual(toolsOf(await ask(message)), ["get_current_time", "finalize_summary"]);
      }
      // A milder "no worries" beside thanks is thanks, and is no part of a fact.
      const thanked = await ask("cheers, no worries");
      assert.equal(thanked.summaryMessage, "You're welcome.");
      const fact = await ask(
        "remember that I take the 7:40 train, no worries",
        `nm-${crypto.randomUUID()}`,
      );
      assert.deepEqual(fact.plan[0].args, { fact: "I take the 7:40 train" });
    });

    await t.step("a memory ask and another request in one message plan both", async () => {
      const chat = `both-${crypto.randomUUID()}`;
      const kept = await ask(
        "Please remember that my brother lives in Quito, Ecuador, then tell me the time there",
        chat,
      );
      assert.deepEqual(kept.plan.slice(0, 2).map((step) => [step.tool, step.args]), [
        ["remember", { fact: "my brother lives in Quito, Ecuador" }],
        ["get_current_time", { time_zone: "Quito Ecuador" }],
      ]);
      const forgot = await ask("forget my old address and list my loops", chat);
      assert.deepEqual(toolsOf(forgot), ["forget", "list_active_loops", "finalize_summary"]);
      assert.deepEqual(forgot.plan[0].args, { what: "my old address" });
      const both = await ask("What time is it in Oslo? Also list my loops.", chat);
      assert.deepEqual(toolsOf(both).sort(), [
        "finalize_summary",
        "get_current_time",
        "list_active_loops",
      ]);
      // A fact that holds verbs no tool answers to stays whole.
      const fact = "my kids swim, draw and read a lot, then nap";
      const whole = await ask(`remember that ${fact}`, chat);
      assert.deepEqual(whole.plan[0].args, { fact });
      // A remark beside a request is no question: it runs no read.
      const remark = await ask("start a plan loop, the time is right", chat);
      assert.deepEqual(toolsOf(remark), ["initialize_refinement_loop", "finalize_summary"]);
      // The request first, the memory ask after it: both too.
      const timeFirst = await ask(
        "what's the time in Nuuk, and also remember that my cousin moved there",
        chat,
      );
      assert.deepEqual(timeFirst.plan.slice(0, 2).map((step) => [step.tool, step.args]), [
        ["get_current_time", { time_zone: "Nuuk" }],
        // "there" kept as the place the read named.
        ["remember", { fact: "my cousin moved to Nuuk" }],
      ]);
      const listFirst = await ask(
        "show my loops. Then erase this thread",
        `erase-${crypto.randomUUID()}`,
      );
      assert.deepEqual(toolsOf(listFirst), [
        "list_active_loops",
        "forget_session",
        "finalize_summary",
      ]);
      const saved = await ask("save this: the offsite is on Thursday", chat);
      assert.deepEqual(saved.plan[0], {
        tool: "remember",
        args: { fact: "the offsite is on Thursday" },
        round: 1,
      });
    });
  } finally {
    await loop.close();
  }
});
