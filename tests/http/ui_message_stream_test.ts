/**
 * A run as the AI SDK's UI message stream, read with the `ai` package's own
 * reader and sent by its own `useChat` transport (no hand-written parser).
 */
import assert from "node:assert/strict";
import {
  DefaultChatTransport,
  parseJsonEventStream,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from "ai";
import { z } from "zod";
import { fromUseChatBody } from "../../shared/http/use_chat_body.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { serve } from "../support/mcp_fixture.ts";
import { post, testApp } from "../support/test_app.ts";

const tools = [
  defineTool({
    name: "lookup",
    description: "Look a word up",
    argsSchema: z.object({ word: z.string() }),
    annotations: { readOnlyHint: true },
    run: ({ args }) => ({ word: args.word, meaning: "a greeting" }),
  }),
  defineTool({
    name: "broken",
    description: "Fails",
    argsSchema: z.object({}),
    annotations: { readOnlyHint: true },
    run: () => {
      throw new Error("the dictionary is closed");
    },
  }),
];

const plan = () =>
  new ScriptedPlanner([
    { tool: "lookup", args: { word: "hello" } },
    { tool: "broken", args: {} },
    { tool: "finalize_summary", args: {} },
  ]);

const userMessage: UIMessage = {
  id: "m1",
  role: "user",
  parts: [{ type: "text", text: "what does hello mean?" }],
};

/** The AI SDK's own decoding (what DefaultChatTransport does), then its message reader. */
async function finalMessage(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  assert.ok(last, "the stream held a message");
  return last;
}

function decode(body: ReadableStream<Uint8Array>): ReadableStream<UIMessageChunk> {
  return parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) throw result.error;
        controller.enqueue(result.value);
      },
    }),
  );
}

type ToolPart = {
  type: string;
  toolName: string;
  state: string;
  output?: unknown;
  errorText?: string;
};

Deno.test("?stream=ui: one dynamic tool part per step, the plan as data, ending with the summary text", async () => {
  const { app } = testApp({ planner: plan(), tools });
  const res = await app.fetch(post({
    id: "chat-1",
    messages: [userMessage],
    trigger: "submit-message",
  }, { path: "/mcp-loop?stream=ui" }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("x-vercel-ai-ui-message-stream"), "v1");
  assert.match(res.headers.get("content-type")!, /text\/event-stream/);
  const message = await finalMessage(decode(res.body!));

  const toolParts = message.parts.filter((p) => p.type === "dynamic-tool") as ToolPart[];
  assert.deepEqual(toolParts.map((p) => [p.toolName, p.state]), [
    ["lookup", "output-available"],
    ["broken", "output-error"],
    ["finalize_summary", "output-available"],
  ]);
  assert.deepEqual(toolParts[0].output, { word: "hello", meaning: "a greeting" });
  assert.match(toolParts[1].errorText!, /TOOL_FAILED: the dictionary is closed/);
  assert.ok(message.parts.some((p) => p.type === "data-plan"));
  assert.ok(message.parts.some((p) => p.type === "data-context"));
  const last = message.parts.at(-1) as { type: string; text: string };
  assert.equal(last.type, "text");
  assert.match(last.text, /^lookup returned word hello, meaning a greeting\.\nbroken failed: /);
  const metadata = message.metadata as { stopReason: string; usage: Record<string, number> };
  assert.equal(metadata.stopReason, "finalized");
  assert.deepEqual(metadata.usage, { modelCalls: 0, promptTokens: 0, completionTokens: 0 });
});

Deno.test("useChat's own transport posts to the function and reads the run back", async () => {
  const { app, store } = testApp({ planner: plan(), tools });
  const server = serve(app);
  try {
    const transport = new DefaultChatTransport({
      api: `${server.base}/mcp-loop`,
      headers: { "x-vercel-ai-ui-message-stream": "v1" },
      body: { mode: "analyst" },
    });
    const stream = await transport.sendMessages({
      chatId: "chat-7",
      messages: [userMessage],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
    });
    const message = await finalMessage(stream);
    assert.equal(message.parts.filter((p) => p.type === "dynamic-tool").length, 3);
    // The chat id became the session, and the user's text its message.
    const stored = store.rows.find((row) => row.role === "user")!;
    assert.equal(stored.sessionId, "chat-7");
    assert.equal(stored.content, "what does hello mean?");
  } finally {
    await server.close();
  }
});

Deno.test("a run that fails streams an error chunk the AI SDK reports", async () => {
  const { app } = testApp({ planner: new ScriptedPlanner(new Error("planner bug")) });
  const res = await app.fetch(post({ id: "c", messages: [userMessage] }, {
    path: "/mcp-loop?stream=ui",
  }));
  const errors: string[] = [];
  for await (
    const _ of readUIMessageStream({
      stream: decode(res.body!),
      onError: (error) => errors.push(String(error)),
    })
  ) {
    // snapshots
  }
  assert.equal(errors.length, 1);
  assert.match(errors[0], /The planner failed unexpectedly; try again/);
});

Deno.test("useChat bodies become loop requests: chat id as session, text parts as content", () => {
  assert.deepEqual(
    fromUseChatBody({
      id: "chat-1",
      trigger: "submit-message",
      messageId: "x",
      maxRounds: 2,
      messages: [
        {
          id: "a",
          role: "user",
          parts: [{ type: "text", text: "one" }, { type: "text", text: "two" }],
        },
        { id: "b", role: "assistant", parts: [{ type: "dynamic-tool", toolName: "t" }] },
        {
          id: "c",
          role: "user",
          parts: [{ type: "file", url: "x" }, { type: "text", text: "three" }],
        },
      ],
    }),
    {
      mode: "general",
      sessionId: "chat-1",
      maxRounds: 2,
      messages: [
        { role: "user", content: "one\ntwo" },
        { role: "assistant", content: "" },
        { role: "user", content: "three" },
      ],
    },
  );
  const spec = { mode: "hiring", sessionId: "s", messages: [{ role: "user", content: "hi" }] };
  assert.equal(fromUseChatBody(spec), spec);
});
