/**
 * The loop with the OpenAI adapters against the strict fake OpenAI API on
 * loopback: embeddings, planning (with parsing and repair) and summaries.
 */
import assert from "node:assert/strict";
import { withFakeDeadlines } from "../support/fake_clock.ts";
import { post, validBody } from "../support/test_app.ts";
import { KEY, plan, run, withOpenAi } from "./openai_fixture.ts";

Deno.test("with OPENAI_* set the loop embeds, plans and summarises through the OpenAI API", () =>
  withOpenAi(async ({ server, app, calls }) => {
    server.chatReplies.push("```json\n" + plan + "\n```", "It is sunny in Lisbon, 24 °C.");
    const { status, json } = await run(app);
    assert.equal(status, 200, JSON.stringify(json));
    assert.deepEqual(calls, ["Lisbon"]);
    assert.equal(json.data.summaryMessage, "It is sunny in Lisbon, 24 °C.");
    assert.deepEqual(json.data.context.embeddedMessage, {
      model: "text-embedding-3-small",
      dimensions: 1536,
    });

    const [embedding] = server.embeddingRequests;
    assert.equal(embedding.body.model, "text-embedding-3-small");
    assert.deepEqual(embedding.body.input, ["What's the weather in Lisbon?"]);

    const [planning, summary] = server.chatRequests;
    assert.equal(planning.body.model, "gpt-4o");
    assert.equal(planning.body.temperature, 0.3);
    assert.equal(planning.body.max_tokens, 1000);
    assert.equal((planning.body.response_format as { type: string }).type, "json_schema");
    const [system, user] = planning.body.messages as { role: string; content: string }[];
    assert.ok(system.content.startsWith("You are a planning agent. "));
    assert.match(user.content, /- get_weather: Current weather for a city/);
    assert.match(user.content, /- finalize_summary: /);
    assert.doesNotMatch(user.content, /embeddedMessage/);
    assert.match(
      JSON.stringify(summary.body.messages),
      /sunny/,
      "the summary is written from the results",
    );
  }));

Deno.test("a plan in prose is still executed", () =>
  withOpenAi(async ({ server, app, calls }) => {
    server.chatReplies.push(`Here you go:\n${plan}\nLet me know!`, "done");
    assert.equal((await run(app)).status, 200);
    assert.deepEqual(calls, ["Lisbon"]);
  }));

Deno.test("a plan wrapped in an object is executed", () =>
  withOpenAi(async ({ server, app, calls }) => {
    server.chatReplies.push(JSON.stringify({ plan: JSON.parse(plan) }), "done");
    assert.equal((await run(app)).status, 200);
    assert.deepEqual(calls, ["Lisbon"]);
  }));

Deno.test("an unknown tool is sent back once and the repaired plan runs", () =>
  withOpenAi(async ({ server, app, calls }) => {
    server.chatReplies.push(
      '[{"tool": "weather_lookup", "args": {"city": "Lisbon"}}]',
      plan,
      "done",
    );
    const { status, json } = await run(app);
    assert.equal(status, 200);
    assert.deepEqual(calls, ["Lisbon"]);
    const repair = server.chatRequests[1].body.messages as { role: string; content: string }[];
    assert.equal(repair[2].role, "assistant");
    assert.match(repair[3].content, /\[0\]\.tool: unknown tool "weather_lookup"/);
    assert.equal(json.data.plan[0].tool, "get_weather");
  }));

Deno.test("invalid args are sent back once with their Zod issue paths and the repaired plan runs", () =>
  withOpenAi(async ({ server, app, calls }) => {
    server.chatReplies.push('[{"tool": "get_weather", "args": {"town": "Lisbon"}}]', plan, "done");
    assert.equal((await run(app)).status, 200);
    assert.deepEqual(calls, ["Lisbon"]);
    const repair = server.chatRequests[1].body.messages as { content: string }[];
    assert.match(
      repair[3].content,
      /\[0\]\.args\.city: Invalid input: expected string, received undefined \(tool "get_weather"\)/,
    );
  }));

Deno.test("garbage twice is 502 PLANNER_INVALID_OUTPUT with the raw text, and nothing runs", () =>
  withOpenAi(async ({ server, app, calls }) => {
    server.chatReplies.push("I think the user wants weather.", "Still no JSON, sorry.");
    const { status, json } = await run(app);
    assert.equal(status, 502);
    assert.equal(json.error.code, "PLANNER_INVALID_OUTPUT");
    assert.equal(json.error.details.raw, "Still no JSON, sorry.");
    assert.deepEqual(calls, []);
    assert.equal(server.chatRequests.length, 2);
  }));

Deno.test("a 500 from the model is retried and the request succeeds", () =>
  withOpenAi(async ({ server, app, calls }) => {
    server.chatReplies.push({ status: 500 }, plan, "done");
    assert.equal((await run(app)).status, 200);
    assert.deepEqual(calls, ["Lisbon"]);
  }));

Deno.test("a model that hangs past the deadline gives 504 at the deadline", () =>
  withOpenAi(({ server, app }) =>
    withFakeDeadlines(async (clock) => {
      server.chatReplies.push({ hang: true });
      const answer = run(app);
      await server.untilHung();
      await clock.advance(300);
      const { status, json } = await answer;
      assert.equal(status, 504);
      assert.equal(json.error.code, "DEADLINE_EXCEEDED");
    }), { MCP_LOOP_DEADLINE_MS: "300" }));

Deno.test("a model that is down gives 502 MODEL_UNAVAILABLE", () =>
  withOpenAi(
    async ({ server, app }) => {
      server.embeddingReplies.push({ status: 503 }, { status: 503 });
      const { status, json } = await run(app);
      assert.equal(status, 502);
      assert.equal(json.error.code, "MODEL_UNAVAILABLE");
      assert.match(json.error.message, /text-embedding-3-small/);
    },
    {},
    { models: { maxRetries: 1 } },
  ));

Deno.test("the API key never appears in a response or a log line", () =>
  withOpenAi(
    async ({ server, app }) => {
      server.chatReplies.push({
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${KEY}` } },
      });
      const { status, json } = await run(app);
      assert.equal(status, 502);
      const everything = JSON.stringify(json) + JSON.stringify(app.logger.entries);
      assert.doesNotMatch(everything, /abcdefghijklmnop|SECRET/);
    },
    {},
    { models: { maxRetries: 0 } },
  ));

Deno.test("when the summary model fails the offline summary is the reply", () =>
  withOpenAi(async ({ server, app }) => {
    server.chatReplies.push(plan, {
      status: 400,
      body: { error: { message: "context too long" } },
    });
    const { status, json } = await run(app);
    assert.equal(status, 200);
    assert.match(
      json.data.summaryMessage,
      /^get_weather returned city Lisbon, forecast sunny/,
    );
    assert.ok(app.logger.entries.some((e) => e.message.includes("summary model failed")));
  }));

Deno.test("with no tools offered the chat planner plans nothing and calls no model for it", () =>
  withOpenAi(async ({ server, app }) => {
    const res = await app.app.fetch(
      post({ ...validBody("hi"), availableTools: [{ name: "not_registered" }] }),
    );
    const json = await res.json();
    assert.equal(res.status, 200);
    assert.deepEqual(json.data.plan, []);
    assert.equal(server.chatRequests.length, 0);
  }));
