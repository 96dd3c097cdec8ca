/**
 * A run as the Vercel AI SDK's UI message stream (protocol v1), so `useChat`
 * with its default transport renders it with no custom code: each round is a
 * step, each loop step a dynamic tool part (input, then output or error, as it
 * runs), the plan, rounds, context and scores `data-*` parts, the summary a
 * text part, and `finish` carries the usage in the message metadata. The
 * chunks are written here (the protocol is `data: <json>` lines); tests read
 * them with the `ai` package's own reader.
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

/** Streams `run` as UI message chunks; `run` resolves with the response body. */
export function uiMessageStreamResponse(
  run: (onEvent: (event: LoopEvent) => void) => Promise<MCPResponse>,
  options: StreamEnd,
): Response {
  const chunk = (value: Chunk) => `data: ${JSON.stringify(value)}\n\n`;
  return eventStreamResponse(
    async (write) => {
      const emit = (value: Chunk) => write(chunk(value));
      emit({ type: "start", messageId: options.requestId });
      let inStep = false;
      const response = await run((event) => {
        for (const value of toChunks(event)) {
          if (value.type === "start-step") {
            if (inStep) emit({ type: "finish-step" });
            inStep = true;
          }
          emit(value);
        }
      });
      if (inStep) emit({ type: "finish-step" });
      const { rounds, stopReason, usage, refinement } = response.data;
      emit({
        type: "finish",
        finishReason: "stop",
        messageMetadata: { requestId: options.requestId, rounds, stopReason, usage, refinement },
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

/** The chunks of one loop event. */
function toChunks(event: LoopEvent): Chunk[] {
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
      return [{
        type: "tool-input-available",
        toolCallId: `step-${event.index}`,
        toolName: event.tool,
        input: event.args,
        dynamic: true,
        // Run here, on the server: the client must not try to run it itself.
        providerExecuted: true,
      }];
    case "step_end":
      return [
        event.result.success
          ? {
            type: "tool-output-available",
            toolCallId: `step-${event.index}`,
            output: event.result.output,
            dynamic: true,
            providerExecuted: true,
          }
          : {
            type: "tool-output-error",
            toolCallId: `step-${event.index}`,
            errorText: `${event.result.code ?? "TOOL_FAILED"}: ${event.result.error ?? "failed"}`,
            dynamic: true,
            providerExecuted: true,
          },
      ];
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
      return [];
  }
}
