/**
 * Budgets against the strict fake OpenAI API (real token counts): a run stops
 * with `budget` before the model call that would cross `maxTokens` or
 * `maxCostUsd` — the call is never sent — and is finished, its turn stored.
 */
import assert from "node:assert/strict";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";
import { PROMPT_COUNTER } from "../../shared/adapters/openai/chat_tokens.ts";
import type { ChatCompletionRequest } from "../../shared/ports.ts";
import { countTokens } from "../fakes/openai_api_rules.ts";
import { withOpenAi } from "../http/openai_fixture.ts";
import { post, validBody } from "../support/test_app.ts";

const WEATHER = '[{"tool": "get_weather", "args": {"city": "Lisbon"}}]';
const FINALIZE = '[{"tool": "finalize_summary", "args": {}}]';

type App = Parameters<Parameters<typeof withOpenAi>[0]>[0]["app"];

async function loop(app: App, body: Record<string, unknown>) {
  const res = await app.app.fetch(post(body));
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json).slice(0, 400));
  return json.data;
}

/** The fake's `n`th chat request's prompt as the budget check counts it before sending. */
function promptOf(server: FakeOpenAiServer, n: number): Promise<number> {
  const body = server.chatRequests[n].body as {
    messages: ChatCompletionRequest["messages"];
    response_format?: { json_schema: NonNullable<ChatCompletionRequest["jsonSchema"]> };
  };
  const spec = body.response_format?.json_schema;
  return PROMPT_COUNTER.countRequest({
    messages: body.messages,
    ...(spec ? { jsonSchema: { ...spec, strict: spec.strict || undefined } } : {}),
  });
}

Deno.test("a run stops with budget before the call that would cross maxTokens, finished and stored", () =>
  withOpenAi(async ({ server, app }) => {
    server.chatReplies.push(WEATHER, FINALIZE, "Sunny.");
    const free = await loop(app, { ...validBody("Weather in Lisbon?"), maxRounds: 2 });
    assert.equal(free.stopReason, "finalized");
    const firstPrompt = await promptOf(server, 0);

    const sent = server.chatRequests.length;
    server.chatReplies.push(WEATHER, FINALIZE, "Sunny.");
    // Room for round 1's prompt and a 100-token answer, not for round 2's prompt.
    const maxTokens = firstPrompt + 100 + 60;
    const body = { ...validBody("Weather in Lisbon?"), maxRounds: 2, maxTokens };
    const data = await loop(app, body);
    assert.equal(server.chatRequests.length, sent + 1, "round 2's call was never sent");
    assert.equal(data.stopReason, "budget");
    assert.equal(data.rounds, 1);
    assert.equal(data.intermediateResults[0].tool, "get_weather");
    assert.ok(data.usage.promptTokens + data.usage.completionTokens <= maxTokens);

    const { data: run } = await (await app.app.fetch(
      new Request(`http://localhost/mcp-loop/runs/${data.runId}`),
    )).json();
    assert.equal(run.status, "completed", JSON.stringify(run).slice(0, 300));
    assert.equal(run.stopReason, "budget");
    const messages = await app.store.listMessages(
      { userId: null, owner: "anonymous" },
      body.sessionId,
      10,
    );
    assert.deepEqual(messages.map((m) => m.content), ["Weather in Lisbon?"], "the turn is stored");
  }));

Deno.test("a maxCostUsd below the first call's cost sends no call at all", () =>
  withOpenAi(async ({ server, app }) => {
    const data = await loop(app, { ...validBody("Weather in Lisbon?"), maxCostUsd: 0.0001 });
    assert.equal(server.chatRequests.length, 0);
    assert.equal(data.stopReason, "budget");
    assert.equal(data.rounds, 0);
    assert.deepEqual(data.plan, []);
  }));

Deno.test("a request may lower the setting's budget, never raise it", () =>
  withOpenAi(
    async ({ server, app }) => {
      const data = await loop(app, { ...validBody("Weather in Lisbon?"), maxTokens: 1_000_000 });
      assert.equal(server.chatRequests.length, 0, "costs.maxTokens 500 still applies");
      assert.equal(data.stopReason, "budget");
    },
    {},
    { costs: { maxTokens: 500 } },
  ));

Deno.test("a summary the budget refuses is written offline, and the run says budget", () =>
  withOpenAi(async ({ server, app }) => {
    // A long question: the summary's prompt repeats it, so it outgrows the counter's margin
    // over the billed count of the planner's prompt (up to 18 %, chat_tokens.ts). At 40 repeats
    // the margin was thin once the counter kept 25,000 ranks (one run in about seven sent the
    // summary); 80 leave room.
    const question = `Weather in Lisbon? ${"We walk the coast for a week. ".repeat(80)}`;
    server.chatReplies.push(`[${WEATHER.slice(1, -1)}, ${FINALIZE.slice(1, -1)}]`, "Sunny.");
    await loop(app, validBody(question));
    const firstPrompt = await promptOf(server, 0);
    const summaryPrompt = await promptOf(server, 1);
    assert.ok(summaryPrompt > 150, `the summary's prompt: ${summaryPrompt}`);
    const sent = server.chatRequests.length;
    server.chatReplies.push(`[${WEATHER.slice(1, -1)}, ${FINALIZE.slice(1, -1)}]`, "Sunny.");
    const answer = countTokens("o200k_base", `[${WEATHER.slice(1, -1)}, ${FINALIZE.slice(1, -1)}]`);
    const maxTokens = firstPrompt + 100 + 40 + Math.min(answer, 100);
    const data = await loop(app, { ...validBody(question), maxTokens });
    assert.equal(server.chatRequests.length, sent + 1, "only the planner's call");
    assert.equal(data.stopReason, "budget");
    assert.match(data.summaryMessage, /^get_weather /, "the offline summary");
  }));

Deno.test("usage.costUsd prices every call, cached prompt tokens at gpt-4o's cached price", () =>
  withOpenAi(async ({ server, app }) => {
    const message = `Weather in Lisbon? ${"The trip is long and detailed. ".repeat(150)}`;
    server.chatReplies.push(WEATHER, FINALIZE, "Sunny.");
    const { usage } = await loop(app, { ...validBody(message), maxRounds: 2 });
    assert.ok(usage.cachedTokens >= 1_024, JSON.stringify(usage));
    const expected = ((usage.promptTokens - usage.cachedTokens) * 2.5 +
      usage.cachedTokens * 1.25 + usage.completionTokens * 10 + usage.embeddingTokens * 0.02) /
      1_000_000;
    assert.ok(Math.abs(usage.costUsd - expected) < 1e-7, `${usage.costUsd} vs ${expected}`);
  }));
