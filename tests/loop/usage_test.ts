import assert from "node:assert/strict";
import { PROMPT_COUNTER } from "../../shared/adapters/openai/chat_tokens.ts";
import { costOf, DEFAULT_PRICES, priceOf } from "../../shared/loop/prices.ts";
import { UsageTotals } from "../../shared/loop/usage.ts";
import type { ChatCompletionRequest, TokenCounter } from "../../shared/ports.ts";
import { promptTokens } from "../fakes/openai_api_rules.ts";
import { buildPlanMessages } from "../../shared/planner/plan_prompt.ts";
import { strictPlanSchema } from "../../shared/planner/strict_plan_schema.ts";
import { registryOf } from "../bench/tokens_setup.ts";
import { labelledRequests } from "../support/tool_catalog.ts";

const REQUEST: ChatCompletionRequest = {
  messages: [{ role: "system", content: "You plan." }, { role: "user", content: "Hello there" }],
  jsonSchema: { name: "plan", schema: { type: "object", properties: {} }, strict: true },
};

/** Counts every request as `tokens`. */
const fixed = (tokens: number): TokenCounter => ({
  countRequest: () => Promise.resolve(tokens),
  countText: () => Promise.resolve(tokens),
});

Deno.test("a dated or prefixed model name takes its base model's price; an unknown one has none", () => {
  assert.equal(priceOf("gpt-4o-2024-08-06"), DEFAULT_PRICES["gpt-4o"]);
  assert.equal(priceOf("gpt-4o-mini-2024-07-18"), DEFAULT_PRICES["gpt-4o-mini"]);
  assert.equal(priceOf("openai/gpt-5-mini"), DEFAULT_PRICES["gpt-5-mini"]);
  assert.equal(priceOf("gpt-4o-audio-preview"), undefined, "another model, not a dated gpt-4o");
  assert.equal(priceOf("llama3.1"), undefined);
  assert.deepEqual(priceOf("llama3.1", { "llama3.1": { input: 0 } }), { input: 0 });
});

Deno.test("a call costs its uncached prompt, its cached prompt at the cached price, and its answer", () => {
  const usd = costOf(
    { promptTokens: 2_000, cachedTokens: 1_024, completionTokens: 100 },
    DEFAULT_PRICES["gpt-4o"],
  );
  assert.equal(usd, (976 * 2.5 + 1_024 * 1.25 + 100 * 10) / 1e6);
});

Deno.test("usage adds the cost of priced calls and embeddings, and keeps it across a resume", () => {
  const usage = new UsageTotals();
  usage.add({ promptTokens: 1_000, completionTokens: 10 });
  assert.equal(usage.total.costUsd, undefined, "a call without a model is not priced");
  usage.add({ promptTokens: 1_000, completionTokens: 10, model: "gpt-4o-mini" });
  usage.addEmbedding(500, "text-embedding-3-small");
  const expected = (1_000 * 0.15 + 10 * 0.6 + 500 * 0.02) / 1e6;
  assert.equal(usage.total.costUsd, Math.round(expected * 1e8) / 1e8);
  const resumed = new UsageTotals(usage.total);
  resumed.add({ promptTokens: 0, completionTokens: 100, model: "gpt-4o-mini" });
  assert.ok(resumed.total.costUsd! > usage.total.costUsd!);
});

Deno.test("a call that would cross maxTokens is refused before it is made, and the meter says so", async () => {
  const usage = new UsageTotals(undefined, { budget: { maxTokens: 1_500 }, counter: fixed(600) });
  await usage.admit({ model: "gpt-4o", request: REQUEST });
  usage.add({ promptTokens: 600, completionTokens: 300, model: "gpt-4o" });
  assert.equal(usage.budgetExceeded(), false);
  // 900 used + 600 prompt + 300 (the longest answer so far) > 1,500.
  await assert.rejects(
    usage.admit({ model: "gpt-4o", request: REQUEST }),
    (error: { code: string; message: string }) =>
      error.code === "BUDGET_EXCEEDED" && /maxTokens 1500/.test(error.message),
  );
  assert.equal(usage.budgetExceeded(), true);
});

Deno.test("maxCostUsd limits priced models only", async () => {
  const usage = new UsageTotals(undefined, {
    budget: { maxCostUsd: 0.001 },
    counter: fixed(1_000),
  });
  // 1,000 prompt tokens and a 100-token answer of gpt-4o: $0.0035.
  await assert.rejects(usage.admit({ model: "gpt-4o", request: REQUEST }), /maxCostUsd 0.001/);
  await usage.admit({ model: "my-local-model", request: REQUEST });
  await new UsageTotals().admit({ model: "gpt-4o", request: REQUEST });
});

Deno.test("the prompt counter is at or above OpenAI's o200k_base count, by at most 18 %", async () => {
  const body = (request: ChatCompletionRequest) => ({
    model: "gpt-4o",
    messages: request.messages,
    response_format: {
      type: "json_schema",
      json_schema: {
        name: request.jsonSchema!.name,
        schema: request.jsonSchema!.schema,
        strict: request.jsonSchema!.strict === true,
      },
    },
  });
  const tools = registryOf(100).getToolMetadataList();
  const requests = [REQUEST];
  for (const { request } of labelledRequests().slice(0, 40)) {
    const messages = buildPlanMessages({
      request: { mode: "general", sessionId: "s", messages: [{ role: "user", content: request }] },
      context: {},
      tools,
      signal: new AbortController().signal,
    });
    requests.push({ messages, jsonSchema: { name: "plan", schema: strictPlanSchema(tools)! } });
  }
  for (const request of requests) {
    const billed = promptTokens("o200k_base", body(request)).length;
    const counted = await PROMPT_COUNTER.countRequest(request);
    assert.ok(counted >= billed && counted <= billed * 1.18, `${counted} vs ${billed}`);
  }
});
