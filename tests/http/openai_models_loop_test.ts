/**
 * The loop over HTTP with current OpenAI models and set-ups against the strict
 * fake: a gpt-5 model, a message longer than the embedding limit, embeddings
 * on their own server, the strict plan schema, and what usage counts.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../../shared/config/config.ts";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";
import { post, testApp, validBody } from "../support/test_app.ts";
import { KEY, plan, run, weatherTool, withOpenAi } from "./openai_fixture.ts";

Deno.test("with MCP_LOOP_CHAT_MODEL=gpt-5 the loop answers 200 against the strict fake", () =>
  withOpenAi(async ({ server, app, calls }) => {
    server.chatReplies.push(plan, "It is sunny in Lisbon.");
    const { status, json } = await run(app);
    assert.equal(status, 200, JSON.stringify(json));
    assert.deepEqual(calls, ["Lisbon"]);
    assert.equal(json.data.summaryMessage, "It is sunny in Lisbon.");
    assert.deepEqual(server.refusals, []);
    const [planning] = server.chatRequests;
    assert.equal(planning.body.model, "gpt-5");
    assert.equal(planning.body.temperature, undefined);
    assert.equal(planning.body.reasoning_effort, "low");
    assert.equal(planning.body.max_completion_tokens, 5_000);
  }, { MCP_LOOP_CHAT_MODEL: "gpt-5" }));

/** 32,000 characters (the longest message accepted) of well over 8,192 tokens. */
const LONG_MESSAGE = Array.from({ length: 2_000 }, (_, i) => `${(i * 7_919) % 100_000} `)
  .join("").padEnd(32_000, "x9 ").slice(0, 32_000);

Deno.test("a 32,000-character message is embedded, cut to the model's limit, rather than refused", () =>
  withOpenAi(async ({ server, app }) => {
    server.chatReplies.push("[]");
    const { status, json } = await run(app, LONG_MESSAGE);
    assert.equal(status, 200, JSON.stringify(json).slice(0, 500));
    assert.deepEqual(server.refusals, []);
    const sent = (server.embeddingRequests[0].body.input as string[])[0];
    assert.ok(sent.length < LONG_MESSAGE.length && LONG_MESSAGE.startsWith(sent));
    // Cut by the counting tokenizer's upper bound: on a text of numbers, about 97 % of the limit.
    const { embeddingTokens } = json.data.usage;
    assert.ok(embeddingTokens <= 8_192 && embeddingTokens > 7_800, String(embeddingTokens));
  }));

Deno.test("embeddings go to MCP_LOOP_EMBEDDING_BASE_URL with its own key; chat stays on OPENAI_BASE_URL", async () => {
  // A chat provider with no embeddings endpoint (as Groq's and Anthropic's APIs have none).
  const chat = FakeOpenAiServer.start({ embeddings: false });
  const embeddings = FakeOpenAiServer.start();
  const calls: string[] = [];
  const { app } = testApp({ tools: [weatherTool(calls)] }, {
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: chat.baseUrl,
    MCP_LOOP_EMBEDDING_BASE_URL: embeddings.baseUrl,
    MCP_LOOP_EMBEDDING_API_KEY: "sk-embed-0123456789",
  });
  try {
    chat.chatReplies.push(plan, "done");
    const { status } = await run({ app } as ReturnType<typeof testApp>);
    assert.equal(status, 200);
    assert.deepEqual(calls, ["Lisbon"]);
    assert.equal(chat.embeddingRequests.length, 0);
    assert.equal(chat.chatRequests.length, 2);
    assert.equal(embeddings.chatRequests.length, 0);
    assert.equal(embeddings.embeddingRequests.length, 1);
    assert.equal(
      embeddings.embeddingRequests[0].headers.authorization,
      "Bearer sk-embed-0123456789",
    );
    assert.equal(chat.chatRequests[0].headers.authorization, `Bearer ${KEY}`);
  } finally {
    await chat.close();
    await embeddings.close();
  }
});

Deno.test("the chat key is not sent to a different embeddings server, and a chat-only provider alone stops start-up", () => {
  assert.throws(
    () => testApp({}, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: "https://api.groq.com/openai/v1" }),
    /api\.groq\.com\/openai\/v1 has no embeddings endpoint: set MCP_LOOP_EMBEDDING_BASE_URL/,
  );
  const { models } = loadConfig({
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: "https://api.groq.com/openai/v1",
    MCP_LOOP_EMBEDDING_BASE_URL: "http://localhost:11434/v1",
  });
  assert.equal(models.embeddings?.apiKey, undefined);
  assert.equal(models.embeddings?.baseUrl, "http://localhost:11434/v1");
  assert.equal(loadConfig({ OPENAI_API_KEY: KEY }).models.embeddings?.apiKey, KEY);
});

Deno.test("the plan schema is strict with each tool's own args, and a plan from it validates without its nulls", () =>
  withOpenAi(async ({ server, app, calls }) => {
    server.chatReplies.push(
      JSON.stringify({
        plan: [
          { tool: "get_weather", args: { city: "Lisbon" } },
          { tool: "finalize_summary", args: { instructions: null } },
        ],
      }),
      "Sunny.",
    );
    const { status, json } = await run(app);
    assert.equal(status, 200, JSON.stringify(json));
    assert.deepEqual(calls, ["Lisbon"]);
    assert.deepEqual(json.data.plan[1], { tool: "finalize_summary", args: {}, round: 1 });
    const format = server.chatRequests[0].body.response_format as {
      json_schema: {
        strict: boolean;
        schema: { properties: { plan: { items: { anyOf: Json[] } } } };
      };
    };
    assert.equal(format.json_schema.strict, true);
    const steps = format.json_schema.schema.properties.plan.items.anyOf;
    const names = steps.map((s) => s.properties.tool.enum[0]);
    assert.ok(names.includes("finalize_summary") && names.includes("initialize_refinement_loop"));
    const weather = steps.find((s) => s.properties.tool.enum[0] === "get_weather");
    assert.deepEqual(weather.properties.args.required, ["city"]);
    assert.equal(weather.properties.args.additionalProperties, false);
  }));

Deno.test("usage counts cached prompt tokens and embedding tokens", () =>
  withOpenAi(async ({ server, app }) => {
    // A long message makes the prompt's stable start over 1,024 tokens; round 2 repeats it.
    const message = `Please check the weather. ${
      "Context: the trip is long and detailed. ".repeat(150)
    }`;
    server.chatReplies.push(
      '[{"tool": "get_weather", "args": {"city": "Lisbon"}}]',
      '[{"tool": "finalize_summary", "args": {}}]',
      "Sunny.",
    );
    const res = await app.app.fetch(post({ ...validBody(message), maxRounds: 2 }));
    const json = await res.json();
    assert.equal(res.status, 200, JSON.stringify(json));
    const { usage } = json.data;
    assert.equal(usage.modelCalls, 3);
    assert.ok(usage.cachedTokens >= 1_024, JSON.stringify(usage));
    assert.ok(usage.embeddingTokens > 1_000, JSON.stringify(usage));
  }));

/** A schema or response read in a test. */
// deno-lint-ignore no-explicit-any
type Json = any;
