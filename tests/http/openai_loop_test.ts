/**
 * The loop with the OpenAI adapters against the strict fake OpenAI API on
 * loopback: embeddings, planning (with parsing and repair) and summaries, for
 * a gpt-4o-class and a gpt-5-class model.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { loadConfig } from "../../shared/config/config.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";
import { post, testApp, validBody } from "../support/test_app.ts";

const KEY = "sk-test-abcdefghijklmnopSECRET";

function weatherTool(calls: string[]) {
  return defineTool({
    name: "get_weather",
    description: "Current weather for a city",
    argsSchema: z.object({ city: z.string() }),
    run: ({ args }) => {
      calls.push(args.city);
      return { city: args.city, forecast: "sunny", celsius: 24 };
    },
  });
}

async function withOpenAi(
  fn: (
    ctx: { server: FakeOpenAiServer; app: ReturnType<typeof testApp>; calls: string[] },
  ) => Promise<void>,
  env: Record<string, string> = {},
) {
  const server = FakeOpenAiServer.start();
  const calls: string[] = [];
  const app = testApp({ tools: [weatherTool(calls)] }, {
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: server.baseUrl,
    ...env,
  });
  try {
    await fn({ server, app, calls });
  } finally {
    await server.close();
  }
}

const plan = JSON.stringify([
  { tool: "get_weather", args: { city: "Lisbon" } },
  { tool: "finalize_summary", args: {} },
]);

async function run(app: ReturnType<typeof testApp>, content = "What's the weather in Lisbon?") {
  const res = await app.app.fetch(post(validBody(content)));
  return { status: res.status, json: await res.json() };
}

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

Deno.test("a model that hangs past the deadline gives 504 within the deadline", () =>
  withOpenAi(async ({ server, app }) => {
    server.chatReplies.push({ hang: true });
    const started = performance.now();
    const { status, json } = await run(app);
    const elapsed = performance.now() - started;
    assert.equal(status, 504);
    assert.equal(json.error.code, "DEADLINE_EXCEEDED");
    assert.ok(elapsed < 3_000, `took ${elapsed} ms`);
  }, { MCP_LOOP_DEADLINE_MS: "300" }));

Deno.test("a model that is down gives 502 MODEL_UNAVAILABLE", () =>
  withOpenAi(async ({ server, app }) => {
    server.embeddingReplies.push({ status: 503 }, { status: 503 });
    const { status, json } = await run(app);
    assert.equal(status, 502);
    assert.equal(json.error.code, "MODEL_UNAVAILABLE");
    assert.match(json.error.message, /text-embedding-3-small/);
  }, { MCP_LOOP_MODEL_MAX_RETRIES: "1" }));

Deno.test("the API key never appears in a response or a log line", () =>
  withOpenAi(async ({ server, app }) => {
    server.chatReplies.push({
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${KEY}` } },
    });
    const { status, json } = await run(app);
    assert.equal(status, 502);
    const everything = JSON.stringify(json) + JSON.stringify(app.logger.entries);
    assert.doesNotMatch(everything, /abcdefghijklmnop|SECRET/);
  }, { MCP_LOOP_MODEL_MAX_RETRIES: "0" }));

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
      /^Ran 1 tool for .*\n- get_weather: city "Lisbon", forecast "sunny"/,
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
    assert.ok(json.data.usage.embeddingTokens <= 8_192 && json.data.usage.embeddingTokens > 8_000);
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
