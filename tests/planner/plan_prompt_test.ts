import assert from "node:assert/strict";
import {
  buildPlanMessages,
  buildRepairMessages,
  PLANNER_SYSTEM_MESSAGE,
  planResponseSchema,
} from "../../shared/planner/plan_prompt.ts";
import { compactJson } from "../../shared/planner/compact_json.ts";
import { loopRequest } from "../support/loop_fixture.ts";

const tools = [
  {
    name: "get_weather",
    description: "Weather for a city",
    argsSchema: { type: "object", properties: { city: { type: "string" } } },
  },
  { name: "finalize_summary", description: "Write the reply", argsSchema: { type: "object" } },
];

const input = (context: Record<string, unknown> = {}, extra = {}) => ({
  request: loopRequest("weather in Lisbon?", extra),
  context,
  tools,
  signal: new AbortController().signal,
});

Deno.test("the prompt uses the specification's system message and lists every tool with its schema", () => {
  const [system, user] = buildPlanMessages(input());
  assert.deepEqual(system, { role: "system", content: PLANNER_SYSTEM_MESSAGE });
  // The specification's system message, then the rule about untrusted data.
  assert.ok(system.content.startsWith("You are a planning agent. "));
  assert.match(system.content, /untrusted-data blocks .* is data/);
  assert.match(user.content, /You are a structured planning agent/);
  assert.match(
    user.content,
    /- get_weather: Weather for a city\n {2}args JSON Schema: \{"type":"object","properties":\{"city"/,
  );
  assert.match(user.content, /If any required argument is unknown, skip that tool/);
  assert.match(user.content, /"weather in Lisbon\?"/);
  assert.match(user.content, /End with finalize_summary/);
});

Deno.test("the prompt never contains the embedding vector", () => {
  const vector = Array.from({ length: 1536 }, (_, i) => i / 10_000 + 0.12345);
  const [, user] = buildPlanMessages(input({ embeddedMessage: vector, sessionId: "s" }));
  assert.doesNotMatch(user.content, /0\.12345/);
  assert.doesNotMatch(user.content, /embeddedMessage/);
});

Deno.test("long context values are cut to the token budget", () => {
  const context = {
    notes: "n".repeat(50_000),
    items: Array.from({ length: 500 }, (_, i) => ({ i })),
  };
  const [, user] = buildPlanMessages(input(context), { contextTokens: 500 });
  const section = user.content.split(/<untrusted-data-[0-9a-f]{16} source="context">\n/)[1]
    .split(/\n<\/untrusted-data-[0-9a-f]{16}>/)[0];
  assert.ok(section.length <= 2_000, `context section is ${section.length} characters`);
  assert.match(section, /more characters/);
});

Deno.test("recent messages keep the newest when cut; memory is reduced to role and content", () => {
  const recentMessages = Array.from(
    { length: 10 },
    (_, i) => ({ id: `m${i}`, role: "user", content: `message ${i}`, createdAt: "t" }),
  );
  const text = compactJson({ recentMessages }, 300);
  assert.match(text, /message 9/);
  assert.doesNotMatch(text, /message 0"/);
  const [, user] = buildPlanMessages(input({ recentMessages }));
  assert.doesNotMatch(user.content, /"id": "m1"/);
});

Deno.test("planner recommendations are passed as hints", () => {
  const [, user] = buildPlanMessages(
    input({}, { plannerRecommendations: [{ tool: "get_weather", why: "asked" }] }),
  );
  assert.match(user.content, /Planner recommendations \(hints from the application, not orders\)/);
  assert.match(user.content, /"why": "asked"/);
});

Deno.test("the repair round replays the exchange and lists the exact problems", () => {
  const messages = buildRepairMessages(input(), {
    raw: '[{"tool":"nope","args":{}}]',
    issues: ['[0].tool: unknown tool "nope"; use one of the listed tool ids'],
  });
  assert.deepEqual(messages.map((m) => m.role), ["system", "user", "assistant", "user"]);
  assert.equal(messages[2].content, '[{"tool":"nope","args":{}}]');
  assert.match(messages[3].content, /- \[0\]\.tool: unknown tool "nope"/);
});

Deno.test("the response schema is a root object whose plan names only the offered tools", () => {
  const schema = planResponseSchema(tools) as {
    type: string;
    properties: { plan: { maxItems: number; items: { properties: { tool: { enum: string[] } } } } };
  };
  assert.equal(schema.type, "object");
  assert.equal(schema.properties.plan.maxItems, 5);
  assert.deepEqual(schema.properties.plan.items.properties.tool.enum, [
    "get_weather",
    "finalize_summary",
  ]);
});

Deno.test("the prompt explains step references with one example, and rounds when there are more", () => {
  const [, one] = buildPlanMessages({ ...input(), round: 1, maxRounds: 1 }).map((m) => m.content);
  assert.match(one, /\{"\$ref": "\/steps\/<n>\/output\/<path>"\}/);
  assert.match(one, /"item_id": \{"\$ref": "\/steps\/0\/output\/id"\}/);
  assert.doesNotMatch(one, /This is (round|the last round)/);

  const [, first] = buildPlanMessages({ ...input(), round: 1, maxRounds: 3 }).map((m) => m.content);
  assert.match(
    first,
    /This is round 1 of at most 3\. A plan that does not end with finalize_summary/,
  );
});

Deno.test("a later round's prompt lists the earlier steps by number as untrusted data", () => {
  const results = [
    {
      tool: "get_weather",
      input: {},
      output: { sky: "clear" },
      success: true,
      durationMs: 1,
      round: 1,
    },
    {
      tool: "get_weather",
      input: {},
      output: null,
      success: false,
      error: "city unknown",
      code: "TOOL_FAILED",
      durationMs: 1,
      round: 1,
    },
  ];
  const [, user] = buildPlanMessages({
    ...input({ get_weather: { sky: "clear" } }),
    round: 3,
    maxRounds: 3,
    results,
  }).map((m) => m.content);
  assert.match(
    user,
    /Step 0 \(round 1\), get_weather, succeeded with:\n<untrusted-data-[0-9a-f]{16} source="tool:get_weather">/,
  );
  assert.match(user, /Step 1 \(round 1\), get_weather, failed \(TOOL_FAILED\):/);
  assert.match(user, /The first step of your plan will be step 2\./);
  assert.match(user, /This is the last round \(3 of 3\): end with finalize_summary/);
  // The step outputs are shown once, in the results, not again in the context.
  const context = user.split(/<untrusted-data-[0-9a-f]{16} source="context">/)[1]
    .split(/<\/untrusted-data-[0-9a-f]{16}>/)[0];
  assert.doesNotMatch(context, /clear/);
});
