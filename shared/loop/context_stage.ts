/**
 * Stage 1 of the loop: embed the latest message and load the conversation
 * memory (recent messages, hybrid matches and the caller's working memory)
 * into the loop context.
 */
import type { ChatMessage, MCPRequest } from "../contracts.ts";
import { AppError, describeError, type ErrorCode, isAppError } from "../errors.ts";
import type {
  Caller,
  ConversationContext,
  ConversationStore,
  Embedder,
  UsageMeter,
} from "../ports.ts";
import { raceAbort, TimeoutReason } from "../abort.ts";

/** What the context stage produces. */
export interface LoadedContext extends ConversationContext {
  latest: ChatMessage;
  embedding: number[];
  /** `{embeddedMessage, recentMessages, semanticMatches, workingMemory, sessionId, mode, ...request.context}` */
  context: Record<string, unknown>;
}

/** Runs the context stage. */
export async function loadLoopContext(
  { request, caller, embedder, store, signal, usage }: {
    request: MCPRequest;
    caller: Caller;
    embedder: Embedder;
    store: ConversationStore;
    signal: AbortSignal;
    /** Where the embedding's tokens are counted. */
    usage?: UsageMeter;
  },
): Promise<LoadedContext> {
  const latest = assertLatestHasContent(request);
  const embedding = await guard(
    embedder.embed([latest.content], { signal, usage }).then(([vector]) => vector),
    signal,
    (error) =>
      `Could not embed the latest message with "${embedder.model}": ${describeError(error)}`,
    "MODEL_UNAVAILABLE",
  );
  const conversation = await guard(
    store.loadContext({
      caller,
      sessionId: request.sessionId,
      text: latest.content,
      embedding,
      embeddingModel: embedder.model,
      signal,
    }),
    signal,
    (error) => `Could not load the conversation from the database: ${describeError(error)}`,
    "DB_UNAVAILABLE",
  );
  const context: Record<string, unknown> = {
    embeddedMessage: embedding,
    recentMessages: conversation.recentMessages,
    semanticMatches: conversation.semanticMatches,
    // The caller's working memory, which the planner reads as data (untrusted, like all context).
    workingMemory: conversation.workingMemory ?? {},
    sessionId: request.sessionId,
    mode: request.mode,
    ...request.context,
  };
  return { latest, embedding, context, ...conversation };
}

/** The latest message; throws EMPTY_MESSAGE when it has no text. */
export function assertLatestHasContent(request: MCPRequest): ChatMessage {
  const latest = request.messages[request.messages.length - 1];
  if (!latest?.content.trim()) {
    throw new AppError(
      "EMPTY_MESSAGE",
      "The latest message has no content; put the user's text in messages[last].content",
    );
  }
  return latest;
}

/**
 * Awaits `promise` within the deadline; our own errors pass through, anything
 * else becomes `code` with a message that says what was attempted.
 */
export async function guard<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  message: (error: unknown) => string,
  code: ErrorCode,
): Promise<T> {
  try {
    return await raceAbort(promise, signal);
  } catch (error) {
    throw asStageError(error, signal, message, code);
  }
}

/** Maps a stage failure to an {@link AppError}, deadline first. */
export function asStageError(
  error: unknown,
  signal: AbortSignal,
  message: (error: unknown) => string,
  code: ErrorCode,
): AppError {
  // Our own errors pass through, except a bare database failure, which gets this stage's words.
  if (isAppError(error) && error.code !== code) return error;
  if (signal.aborted && signal.reason instanceof TimeoutReason) {
    return new AppError(
      "DEADLINE_EXCEEDED",
      `The request did not finish in time: ${signal.reason.message}; try again, or raise MCP_LOOP_DEADLINE_MS`,
      { cause: error },
    );
  }
  if (signal.aborted) return cancelled(error);
  return new AppError(code, message(error), { cause: error });
}

/** The run was stopped from outside (the client went away, or a caller aborted it). */
export function cancelled(cause?: unknown): AppError {
  return new AppError("CANCELLED", "The run was cancelled: the client went away or aborted it", {
    cause,
  });
}
