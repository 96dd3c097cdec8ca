/**
 * The planner, the scorer and the summary through the real OpenAI SDK against
 * the strict fake, for a gpt-4o-class and a gpt-5-class model: the fake
 * refuses what OpenAI refuses, so no refusal means OpenAI would take them.
 */
import assert from "node:assert/strict";
import { createOpenAiClient } from "../../shared/adapters/openai/openai_client.ts";
import {
  OpenAiChatModel,
  type OpenAiChatOptions,
} from "../../shared/adapters/openai/openai_chat_model.ts";
import { isAppError } from "../../shared/errors.ts";
import { UsageTotals } from "../../shared/loop/usage.ts";
import { ChatPlanner } from "../../shared/planner/chat_planner.ts";
import { SILENT_LOGGER } from "../../shared/ports.ts";
import { ChatScorer } from "../../shared/refinement/chat_scorer.ts";
import { createModelSummarizer } from "../../shared/tools/model_summary.ts";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";

const request = {
  mode: "general" as const,
  sessionId: "s-models",
  messages: [{ role: "user" as const, content: "What's the weather in Lisbon?" }],
};
const tools = [
  {
    name: "get_weather",
    description: "Current weather for a city",
    argsSchema: {
      type: "object",
      properties: { city: { type: "string", minLength: 1 }, units: { enum: ["C", "F"] } },
      required: ["city"],
    },
  },
  { name: "finalize_summary", description: "Write the reply", argsSchema: { type: "object" } },
];
const signal = new AbortController().signal;

/** Plans, scores and summarises once with `model` through the fake acting as OpenAI's API. */
async function runAll(model: string, options: OpenAiChatOptions = {}) {
  const server = FakeOpenAiServer.start();
  try {
    const client = createOpenAiClient({ apiKey: "sk-test", baseUrl: server.baseUrl });
    const chat = new OpenAiChatModel(client, { model, server: "openai", ...options });
    const usage = new UsageTotals();
    server.chatReplies.push(
      JSON.stringify({ plan: [{ tool: "get_weather", args: { city: "Lisbon", units: null } }] }),
      '{"score": 90, "feedback": "Good."}',
      "It is sunny in Lisbon.",
    );
    const plan = await new ChatPlanner(chat).plan({
      request,
      context: {},
      tools,
      signal,
      usage,
    });
    const score = await new ChatScorer(chat, { logger: SILENT_LOGGER }).score({
      request,
      round: 1,
      results: [],
      threshold: 80,
      signal,
      usage,
    });
    const summary = await createModelSummarizer(chat, { logger: SILENT_LOGGER })(
      { message: "What's the weather in Lisbon?", mode: "general", results: [] },
      signal,
      usage,
    );
    return { plan, score, summary, usage: usage.total, server };
  } finally {
    await server.close();
  }
}

Deno.test("gpt-4o-class: planner, scorer and summary pass the strict fake with temperature and max_completion_tokens", async () => {
  const { plan, score, summary, usage, server } = await runAll("gpt-4o");
  assert.deepEqual(server.refusals, []);
  assert.deepEqual(plan, [{ tool: "get_weather", args: { city: "Lisbon" } }]);
  assert.equal(score.score, 90);
  assert.equal(summary, "It is sunny in Lisbon.");
  const [planning, scoring, summarising] = server.chatRequests.map((r) => r.body);
  assert.deepEqual(
    [planning, scoring, summarising].map((b) => [b.temperature, b.max_completion_tokens]),
    [[0.3, 1000], [0, 400], [0.3, 600]],
  );
  assert.ok(server.chatRequests.every((r) => !("reasoning_effort" in r.body)));
  assert.equal((planning.response_format as Json).json_schema.strict, true);
  assert.equal((scoring.response_format as Json).json_schema.strict, true);
  assert.equal(usage.modelCalls, 3);
  assert.ok(usage.promptTokens > 300 && usage.cachedTokens === 0, JSON.stringify(usage));
});

Deno.test("gpt-5-class: no temperature (not even the scorer's 0), reasoning_effort low and room to reason", async () => {
  const { plan, score, summary, usage, server } = await runAll("gpt-5");
  assert.deepEqual(server.refusals, []);
  assert.deepEqual(plan, [{ tool: "get_weather", args: { city: "Lisbon" } }]);
  assert.equal(score.score, 90);
  assert.equal(summary, "It is sunny in Lisbon.");
  for (const { body } of server.chatRequests) {
    assert.equal(body.temperature, undefined);
    assert.equal(body.max_tokens, undefined);
    assert.equal(body.reasoning_effort, "low");
  }
  assert.deepEqual(server.chatRequests.map((r) => r.body.max_completion_tokens), [
    5000,
    4400,
    4600,
  ]);
  // The fake spends 128 reasoning tokens per call at "low", counted as completion tokens.
  assert.ok(usage.completionTokens > 3 * 128, JSON.stringify(usage));
});

Deno.test("the same calls fail against the strict fake the way they failed before: max_tokens and temperature 0", async () => {
  const server = FakeOpenAiServer.start();
  try {
    const res = await fetch(`${server.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-5",
        messages: [{ role: "user", content: "hi" }],
        temperature: 0.3,
        max_tokens: 1000,
      }),
    });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error.param, "max_tokens");
  } finally {
    await server.close();
  }
});

Deno.test("an effort the model does not take is dropped once; the call succeeds with the model's default", async () => {
  const { server, score } = await runAll("o3", { reasoningEffort: "minimal" });
  assert.equal(score.score, 90);
  assert.equal(server.refusals.length, 1);
  assert.equal(server.refusals[0].error.param, "reasoning_effort");
  assert.deepEqual(server.chatRequests.map((r) => r.body.reasoning_effort), [
    "minimal",
    undefined,
    undefined,
    undefined,
  ]);
});

Deno.test("a reasoning model that spends its whole budget reasoning fails saying which setting to raise", async () => {
  const server = FakeOpenAiServer.start();
  try {
    const client = createOpenAiClient({ apiKey: "sk-test", baseUrl: server.baseUrl });
    const chat = new OpenAiChatModel(client, {
      model: "gpt-5-mini",
      reasoningEffort: "medium",
      reasoningTokens: 0,
    });
    await assert.rejects(
      chat.complete({ messages: [{ role: "user", content: "hi" }], maxTokens: 100 }),
      (e) => {
        assert.ok(isAppError(e));
        assert.match(e.message, /budget of 100 tokens \(100 on reasoning\)/);
        assert.match(e.message, /raise the option models\.reasoningTokens/);
        return true;
      },
    );
  } finally {
    await server.close();
  }
});

Deno.test("a prompt that repeats an earlier one's long prefix reports cached tokens", async () => {
  const server = FakeOpenAiServer.start();
  try {
    const client = createOpenAiClient({ apiKey: "sk-test", baseUrl: server.baseUrl });
    const chat = new OpenAiChatModel(client, { model: "gpt-5" });
    const system = { role: "system" as const, content: "Stable instructions. ".repeat(400) };
    await chat.complete({ messages: [system, { role: "user", content: "first" }] });
    const { usage } = await chat.complete({ messages: [system, { role: "user", content: "2" }] });
    assert.ok(usage?.cachedTokens && usage.cachedTokens >= 1_024, JSON.stringify(usage));
    assert.equal(usage.cachedTokens % 128, 0);
  } finally {
    await server.close();
  }
});

/** A schema or response read in a test. */
// deno-lint-ignore no-explicit-any
type Json = any;
