/**
 * Approvals over the AI SDK's UI message stream, with the `ai` package's own
 * chat (`AbstractChat` + `DefaultChatTransport`, as `useChat` runs them) and
 * `sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses`:
 * the paused run shows the SDK's approval request, the answer goes back by
 * itself, and the run goes on in the same message and the same tool part.
 */
import assert from "node:assert/strict";
import {
  type DynamicToolUIPart,
  parseJsonEventStream,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from "ai";
import { z } from "zod";
import { defineTool } from "../../shared/tools/tool.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { approvingChat } from "../support/test_chat.ts";
import { post, testApp } from "../support/test_app.ts";

function deleteRow(calls: string[]) {
  return defineTool({
    name: "delete_row",
    description: "Delete a row",
    argsSchema: z.object({ table: z.string(), id: z.number() }),
    needsApproval: true,
    run: ({ args }) => {
      calls.push(`${args.table}/${args.id}`);
      return { deleted: 1 };
    },
  });
}

const PLAN = [
  { tool: "delete_row", args: { table: "users", id: 5 } },
  { tool: "finalize_summary", args: {} },
];

function setUp() {
  const calls: string[] = [];
  const { app, runs } = testApp({ planner: new ScriptedPlanner(PLAN), tools: [deleteRow(calls)] });
  return { app, runs, calls, ...approvingChat(app) };
}

const toolParts = (message: UIMessage) =>
  message.parts.filter((p): p is DynamicToolUIPart => p.type === "dynamic-tool");

/** Sends the request and checks the chat shows the approval request; returns the part. */
async function pausedCall(chat: ReturnType<typeof setUp>["chat"]) {
  await chat.sendMessage({ text: "delete user 5" });
  assert.equal(chat.status, "ready");
  const [part] = toolParts(chat.lastMessage!);
  assert.equal(part.state, "approval-requested");
  assert.equal(part.toolName, "delete_row");
  assert.deepEqual(part.input, { table: "users", id: 5 });
  return part as DynamicToolUIPart & { approval: { id: string } };
}

Deno.test("useChat: a call that needs approval is the SDK's approval request; approving runs it once in the same message", async () => {
  const { chat, calls, runs, bodies, finished } = setUp();
  const part = await pausedCall(chat);
  const metadata = chat.lastMessage!.metadata as { runId: string; stopReason: string };
  assert.equal(metadata.stopReason, "approval_required");
  const record = await runs.get({ userId: null, owner: "anonymous" }, metadata.runId);
  assert.equal(record?.status, "waiting_approval");
  assert.equal(part.approval.id, record!.checkpoint.pendingApprovals[0].id, "the run's own id");
  assert.ok(chat.lastMessage!.parts.some((p) => p.type === "data-run"));
  assert.deepEqual(calls, [], "nothing ran before the approval");

  await chat.addToolApprovalResponse({ id: part.approval.id, approved: true });
  await finished(2);

  assert.equal(bodies.length, 2, "the chat sent the answer by itself");
  assert.equal(bodies[1].messageId, chat.lastMessage!.id);
  assert.equal(chat.messages.length, 2, "one user and one assistant message, not a second one");
  const [done, summary] = toolParts(chat.lastMessage!);
  assert.equal(done.toolCallId, part.toolCallId, "the same tool part");
  assert.equal(done.state, "output-available");
  assert.deepEqual(done.state === "output-available" && done.output, { deleted: 1 });
  assert.equal(done.approval?.approved, true);
  assert.equal(summary.toolName, "finalize_summary");
  assert.deepEqual(calls, ["users/5"], "run once");
  const text = chat.lastMessage!.parts.findLast((p) => p.type === "text");
  assert.match(text?.type === "text" ? text.text : "", /delete_row/);
  assert.equal((chat.lastMessage!.metadata as { stopReason: string }).stopReason, "finalized");
  const after = await runs.get({ userId: null, owner: "anonymous" }, metadata.runId);
  assert.equal(after?.status, "completed");
});

Deno.test("useChat: denying marks the part output-denied and the call never runs; the reason reaches the run", async () => {
  const { chat, calls, runs, finished } = setUp();
  const part = await pausedCall(chat);
  await chat.addToolApprovalResponse({
    id: part.approval.id,
    approved: false,
    reason: "not today",
  });
  await finished(2);

  assert.equal(chat.messages.length, 2);
  const [denied] = toolParts(chat.lastMessage!);
  assert.equal(denied.toolCallId, part.toolCallId);
  assert.equal(denied.state, "output-denied");
  assert.equal(denied.approval?.approved, false);
  assert.deepEqual(calls, []);
  const { runId } = chat.lastMessage!.metadata as { runId: string };
  const record = await runs.get({ userId: null, owner: "anonymous" }, runId);
  const result = record!.checkpoint.results[0]!;
  assert.equal(result.code, "APPROVAL_DENIED");
  assert.match(result.error!, /not today/);
});

/** A useChat body answering `approvalId` of `runId` (as `addToolApprovalResponse` leaves it). */
function answerBody(runId: string | undefined, approvalId: string) {
  return {
    id: "chat-x",
    trigger: "submit-message",
    messageId: "m-2",
    messages: [
      { id: "m-1", role: "user", parts: [{ type: "text", text: "delete user 5" }] },
      {
        id: "m-2",
        role: "assistant",
        parts: [
          ...(runId ? [{ type: "data-run", id: "run", data: { runId } }] : []),
          {
            type: "dynamic-tool",
            toolName: "delete_row",
            toolCallId: "step-0",
            state: "approval-responded",
            input: { table: "users", id: 5 },
            approval: { id: approvalId, approved: true },
          },
        ],
      },
    ],
  };
}

Deno.test("an approval response is checked: no run named, an id the run does not wait for, another caller's run", async () => {
  const KEYS = "alice=alice-key-0123456789, bob=bob-key-0123456789ab";
  const calls: string[] = [];
  const { app } = testApp(
    { planner: new ScriptedPlanner(PLAN), tools: [deleteRow(calls)] },
    { MCP_LOOP_API_KEYS: KEYS },
  );
  const as = (who: string) => ({
    headers: { authorization: `Bearer ${who}-key-0123456789${who === "bob" ? "ab" : ""}` },
  });
  const started = await app.fetch(post({
    mode: "general",
    sessionId: `s-${crypto.randomUUID()}`,
    messages: [{ role: "user", content: "delete user 5" }],
  }, as("alice")));
  const { data } = await started.json();
  const [pending] = data.pendingApprovals;

  const unnamed = await app.fetch(post(answerBody(undefined, pending.id), as("alice")));
  assert.equal(unnamed.status, 422);
  assert.match((await unnamed.json()).error.message, /names no run/);
  const unknown = await app.fetch(post(answerBody(data.runId, "nope"), as("alice")));
  assert.equal(unknown.status, 422);
  assert.match((await unknown.json()).error.message, /has no pending approval "nope"/);
  const bob = await app.fetch(post(answerBody(data.runId, pending.id), as("bob")));
  assert.equal(bob.status, 404);
  assert.deepEqual(calls, []);

  const alice = await app.fetch(post(answerBody(data.runId, pending.id), as("alice")));
  assert.equal(alice.status, 200);
  assert.equal((await alice.json()).data.stopReason, "finalized");
  assert.deepEqual(calls, ["users/5"]);
});

/** The stream's chunks as the AI SDK decodes them, and the message its reader builds from them. */
async function read(res: Response, message?: UIMessage) {
  const chunks: UIMessageChunk[] = [];
  const stream = parseJsonEventStream({ stream: res.body!, schema: uiMessageChunkSchema })
    .pipeThrough(
      new TransformStream({
        transform(result, controller) {
          if (!result.success) throw result.error;
          chunks.push(result.value);
          controller.enqueue(result.value);
        },
      }),
    );
  let last: UIMessage | undefined;
  for await (const m of readUIMessageStream({ message, stream })) last = m;
  return { chunks, message: last! };
}

Deno.test("readUIMessageStream: the pause ends with finishReason tool-calls; the continuation keeps the message id and finishes the part", async () => {
  const { app, calls } = setUp();
  const paused = await read(
    await app.fetch(post({
      id: "chat-r",
      trigger: "submit-message",
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "delete user 5" }] }],
    }, { path: "/mcp-loop?stream=ui" })),
  );
  const types = paused.chunks.map((c) => c.type);
  assert.deepEqual(types.slice(types.indexOf("tool-input-available")), [
    "tool-input-available",
    "tool-approval-request",
    "finish-step",
    "finish",
  ]);
  const finish = paused.chunks.at(-1) as { finishReason?: string };
  assert.equal(finish.finishReason, "tool-calls");
  const [part] = toolParts(paused.message);
  assert.equal(part.state, "approval-requested");

  const answered: UIMessage = {
    ...paused.message,
    parts: paused.message.parts.map((p) =>
      p === part
        ? {
          ...part,
          state: "approval-responded",
          approval: { id: part.approval!.id, approved: true },
        } as DynamicToolUIPart
        : p
    ),
  };
  const res = await app.fetch(post({
    id: "chat-r",
    trigger: "submit-message",
    messageId: paused.message.id,
    messages: [
      { id: "u1", role: "user", parts: [{ type: "text", text: "delete user 5" }] },
      answered,
    ],
  }, { path: "/mcp-loop?stream=ui" }));
  const next = await read(res, answered);
  assert.deepEqual(next.chunks[0], { type: "start", messageId: paused.message.id });
  assert.equal(
    next.chunks.filter((c) => c.type === "tool-input-available" && c.toolCallId === part.toolCallId)
      .length,
    0,
    "the part is not announced again",
  );
  assert.equal(next.message.id, paused.message.id);
  const [done] = toolParts(next.message);
  assert.equal(done.state, "output-available");
  assert.deepEqual(calls, ["users/5"]);
});
