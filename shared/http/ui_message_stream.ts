/**
 * A run as the Vercel AI SDK's UI message stream (protocol v1), so `useChat`
 * with its default transport renders it with no custom code: each round is a
 * step, each loop step a dynamic tool part (input, then output or error, as it
 * runs), the plan, rounds, context and scores `data-*` parts, the summary a
 * text part, and `finish` carries the usage in the message metadata. The
 * chunks are written here (the protocol is `data: <json>` lines); tests read
 * them with the `ai` package's own reader.
 *
 * A run that waits for a person shows each call as the SDK's own approval
 * request (the call's tool part, then `tool-approval-request` whose
 * `approvalId` is the run's pending approval id) and finishes with
 * `finishReason: "tool-calls"`, so `useChat` can send the answers back on its
 * own. The answer's continuation goes on in the same message (its id, or
 * none): it finishes those tool parts (`tool-output-available`, or
 * `tool-output-denied`) and never announces them again.
 */
import type { LoopEvent, MCPResponse } from "../contracts.ts";
import { eventStreamResponse, type StreamEnd } from "./sse.ts";

/** The headers the AI SDK's own server helpers send. */
export const UI_MESSAGE_STREAM_HEADERS = {
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

/** One chunk of the stream (the part of the protocol this function writes). */
type Chunk = { type: string } & Record<string, unknown>;

/** The message a stream continues: a person answered the calls its run waits for. */
export interface UiContinuation {
  /** The assistant message's id (the body's `messageId`); the stream keeps it. */
  messageId?: string;
  /** The tool parts the message already has. */
  toolCallIds: readonly string[];
}

/** Streams `run` as UI message chunks; `run` resolves with the response body. */
export function uiMessageStreamResponse(
  run: (onEvent: (event: LoopEvent) => void) => Promise<MCPResponse>,
  options: StreamEnd & { continuation?: UiContinuation },
): Response {
  const chunk = (value: Chunk) => `data: ${JSON.stringify(value)}\n\n`;
  const { continuation } = options;
  return eventStreamResponse(
    async (write) => {
      const emit = (value: Chunk) => write(chunk(value));
      // A different id would make useChat push a second message and leave the first one waiting.
      const messageId = continuation ? continuation.messageId : options.requestId;
      emit({ type: "start", ...(messageId === undefined ? {} : { messageId }) });
      let inStep = false;
      if (continuation) {
        emit({ type: "start-step" });
        inStep = true;
      }
      const known = new Set(continuation?.toolCallIds);
      const response = await run((event) => {
        for (const value of toChunks(event, known)) {
          if (value.type === "start-step") {
            if (inStep) emit({ type: "finish-step" });
            inStep = true;
          }
          emit(value);
        }
      });
      if (inStep) emit({ type: "finish-step" });
      const { rounds, stopReason, usage, refinement, runId } = response.data;
      emit({
        type: "finish",
        // Never "interrupted": useChat would then not send the approvals back by itself.
        finishReason: stopReason === "approval_required" ? "tool-calls" : "stop",
        messageMetadata: {
          requestId: options.requestId,
          ...(runId ? { runId } : {}),
          rounds,
          stopReason,
          usage,
          refinement,
        },
      });
    },
    {
      ...options,
      headers: UI_MESSAGE_STREAM_HEADERS,
      fail: (body, write) => write(chunk({ type: "error", errorText: body.error.message })),
      finish: "data: [DONE]\n\n",
    },
  );
}

/** A loop step's tool part: run here, on the server (the client must not run it itself). */
const serverTool = { dynamic: true, providerExecuted: true } as const;

/** The chunks of one loop event; `known` holds the tool parts the message has. */
function toChunks(event: LoopEvent, known: Set<string>): Chunk[] {
  switch (event.type) {
    case "context":
      return [{ type: "data-context", id: "context", data: event }];
    case "round_start":
      return [{ type: "start-step" }, {
        type: "data-round",
        id: `round-${event.round}`,
        data: { round: event.round, maxRounds: event.maxRounds },
      }];
    case "plan":
      return [{
        type: "data-plan",
        id: `plan-${event.round}`,
        data: { round: event.round, plan: event.plan, repaired: event.repaired },
      }];
    case "step_start":
      return toolInput(known, event.index, event.tool, event.args);
    case "step_end": {
      const toolCallId = `step-${event.index}`;
      const { result } = event;
      if (result.code === "APPROVAL_DENIED") return [{ type: "tool-output-denied", toolCallId }];
      return [
        result.success
          ? { type: "tool-output-available", toolCallId, output: result.output, ...serverTool }
          : {
            type: "tool-output-error",
            toolCallId,
            errorText: `${result.code ?? "TOOL_FAILED"}: ${result.error ?? "failed"}`,
            ...serverTool,
          },
      ];
    }
    case "score": {
      const { round, score, feedback, threshold, decision } = event;
      return [{
        type: "data-score",
        id: `score-${round}`,
        data: { round, score, feedback, threshold, decision },
      }];
    }
    case "summary":
      return [
        { type: "text-start", id: "summary" },
        { type: "text-delta", id: "summary", delta: event.summaryMessage },
        { type: "text-end", id: "summary" },
      ];
    case "run":
      return [{ type: "data-run", id: "run", data: { runId: event.runId } }];
    case "approval_required":
      return event.pendingApprovals.flatMap((pending) => [
        ...toolInput(known, pending.step, pending.tool, pending.args),
        {
          type: "tool-approval-request",
          approvalId: pending.id,
          toolCallId: `step-${pending.step}`,
        },
      ]);
  }
}

/** The step's tool part, unless the message has it already (a second one would be a duplicate). */
function toolInput(known: Set<string>, index: number, tool: string, args: unknown): Chunk[] {
  const toolCallId = `step-${index}`;
  if (known.has(toolCallId)) return [];
  known.add(toolCallId);
  return [{ type: "tool-input-available", toolCallId, toolName: tool, input: args, ...serverTool }];
}
