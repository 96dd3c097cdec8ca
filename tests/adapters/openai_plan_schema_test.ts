/**
 * The planner's first request from a fresh adapter, through the real OpenAI
 * SDK against the strict fake (OpenAI's documented strict-schema rules and
 * limits): accepted as sent, so no call is refused and strict output is kept.
 * And when a server does refuse a strict schema: the last resort, not silent.
 */
import assert from "node:assert/strict";
import { createOpenAiClient } from "../../shared/adapters/openai/openai_client.ts";
import { OpenAiChatModel } from "../../shared/adapters/openai/openai_chat_model.ts";
import { ChatPlanner } from "../../shared/planner/chat_planner.ts";
import type { PlannerTool } from "../../shared/ports.ts";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { builtInPlannerTools } from "../support/built_in_tools.ts";
import { catalogTools, registerCatalog } from "../support/tool_catalog.ts";

const messages = [{ role: "user" as const, content: "Answer in JSON" }];

/** An answer of 400 as the API gives it. */
function refusal(message: string, param: string | null) {
  return {
    status: 400,
    body: { error: { message, type: "invalid_request_error", param, code: null } },
  };
}

async function withServer(fn: (server: FakeOpenAiServer) => Promise<void>) {
  const server = FakeOpenAiServer.start();
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

/** Plans once with a fresh adapter for `model`, the model answering `reply`. */
async function planOnce(model: string, tools: PlannerTool[], reply: unknown) {
  const server = FakeOpenAiServer.start();
  try {
    const logger = new RecordingLogger();
    const chat = new OpenAiChatModel(
      createOpenAiClient({ apiKey: "sk-test", baseUrl: server.baseUrl }),
      { model, server: "openai", logger },
    );
    server.chatReplies.push(JSON.stringify(reply));
    const plan = await new ChatPlanner(chat).plan({
      request: {
        mode: "general",
        sessionId: "s-plan-schema",
        messages: [{ role: "user", content: "Keep in mind that I prefer trains" }],
      },
      context: {},
      tools,
      signal: new AbortController().signal,
    });
    return { plan, server, logger };
  } finally {
    await server.close();
  }
}

for (const model of ["gpt-4o", "gpt-5"]) {
  Deno.test(`${model}: a fresh adapter's first plan request with every built-in tool is accepted, strict`, async () => {
    const memory = { preferences: ["Travel by train where possible"] };
    const { plan, server, logger } = await planOnce(model, builtInPlannerTools(), {
      plan: [
        { tool: "remember", args: JSON.stringify({ fact: null, memory }) },
        { tool: "finalize_summary", args: { instructions: null } },
      ],
    });
    assert.deepEqual(server.refusals, []);
    assert.equal(server.chatRequests.length, 1, "one call: nothing refused and sent again");
    const format = server.chatRequests[0].body.response_format as {
      json_schema: { strict: boolean };
    };
    assert.equal(format.json_schema.strict, true);
    assert.deepEqual(plan, [
      { tool: "remember", args: { memory } },
      { tool: "finalize_summary", args: {} },
    ]);
    assert.deepEqual(logger.entries, []);
  });
}

Deno.test("a fresh adapter's first plan request with real MCP servers' tools is accepted, strict", async () => {
  const tools = [
    ...builtInPlannerTools(),
    ...registerCatalog(catalogTools()).getToolMetadataList().slice(0, 60),
  ];
  const { server } = await planOnce("gpt-4o", tools, { plan: [] });
  assert.deepEqual(server.refusals, []);
  assert.equal(server.chatRequests.length, 1);
});

Deno.test("a strict schema the server refuses is sent again as a hint, not strict again, and a warning says so", () =>
  withServer(async (server) => {
    server.chatReplies.push(
      refusal(
        "Invalid schema for response_format 'p': In context=(), 'additionalProperties' is required to be supplied and to be false.",
        "response_format",
      ),
      "a",
      "b",
      "c",
    );
    const logger = new RecordingLogger();
    const model = new OpenAiChatModel(
      createOpenAiClient({ apiKey: "sk-test", baseUrl: server.baseUrl }),
      { logger },
    );
    const schema = { type: "object", properties: {}, required: [], additionalProperties: false };
    const strict = { messages, jsonSchema: { name: "p", schema, strict: true } };
    assert.equal((await model.complete(strict)).text, "a");
    await model.complete(strict);
    // Another schema is still asked strictly.
    const other = { ...schema, properties: { x: { type: "string" } }, required: ["x"] };
    await model.complete({ messages, jsonSchema: { name: "p", schema: other, strict: true } });
    assert.deepEqual(
      server.chatRequests.map((r) =>
        (r.body.response_format as { json_schema: { strict: boolean } })
          .json_schema.strict
      ),
      [true, false, false, true],
    );
    assert.equal(model.responseFormat, "json_schema");
    const warnings = logger.entries.filter((e) => e.level === "warn");
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, /refused the strict JSON schema "p"/);
    assert.match(String(warnings[0].fields?.reason), /'additionalProperties' is required/);
  }));
