import assert from "node:assert/strict";
import { loadConfig } from "../../shared/config/config.ts";
import { MCPRequest } from "../../shared/contracts.ts";
import { DEFAULT_PRICES } from "../../shared/loop/prices.ts";

Deno.test("no budget and the default prices unless set; the option costs.prices adds and replaces models", () => {
  const plain = loadConfig({}).costs;
  assert.deepEqual(plain, { prices: DEFAULT_PRICES, maxTokens: undefined, maxCostUsd: undefined });
  const set = loadConfig({ MCP_LOOP_MAX_COST_USD: "0.05" }, {
    options: {
      costs: {
        maxTokens: 20_000,
        prices: {
          "llama3.1": { input: 0, output: 0 },
          "gpt-4o": { input: 2, cachedInput: 1, output: 8 },
        },
      },
    },
  }).costs;
  assert.equal(set.maxTokens, 20_000);
  assert.equal(set.maxCostUsd, 0.05);
  assert.deepEqual(set.prices["llama3.1"], { input: 0, output: 0 });
  assert.deepEqual(set.prices["gpt-4o"], { input: 2, cachedInput: 1, output: 8 });
  assert.deepEqual(set.prices["gpt-5"], DEFAULT_PRICES["gpt-5"]);
});

Deno.test("bad cost settings stop start-up, each named", () => {
  assert.throws(
    () =>
      loadConfig({ MCP_LOOP_MAX_COST_USD: "-1" }, {
        options: {
          costs: { maxTokens: 10.5, prices: { "gpt-4o": { input: "cheap" as never } } },
        },
      }),
    (error: Error) =>
      /option costs\.maxTokens/.test(error.message) &&
      /MCP_LOOP_MAX_COST_USD/.test(error.message) && /option costs\.prices/.test(error.message),
  );
});

Deno.test("a request's maxTokens is a positive integer and its maxCostUsd a positive number", () => {
  const base = { mode: "general", sessionId: "s", messages: [{ role: "user", content: "hi" }] };
  assert.equal(MCPRequest.parse({ ...base, maxTokens: 5_000, maxCostUsd: 0.02 }).maxCostUsd, 0.02);
  for (
    const bad of [{ maxTokens: 0 }, { maxTokens: 1.5 }, { maxCostUsd: 0 }, { maxCostUsd: "1" }]
  ) {
    assert.equal(MCPRequest.safeParse({ ...base, ...bad }).success, false, JSON.stringify(bad));
  }
});
