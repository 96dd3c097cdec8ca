/**
 * The wire contract of `POST /mcp-loop`, exactly the shapes of the MCP loop
 * specification (seed 001), as Zod schemas with their inferred types.
 */
import { z } from "zod";

/** Upper bounds that keep one request's cost predictable. */
export const LIMITS = {
  /** Longest accepted message content, in characters. */
  maxMessageChars: 32_000,
  /** Most messages accepted in one request. */
  maxMessages: 200,
  /** Longest session id, in characters. */
  maxSessionIdChars: 200,
  /** Most steps a plan may have. */
  maxPlanSteps: 5,
  /** Most entries in `availableTools` or `plannerRecommendations`. */
  maxListEntries: 100,
} as const;

/** The four request modes the loop knows. */
export const Mode = z.enum(["analyst", "candidate", "hiring", "general"]);
/** One of the request modes. */
export type Mode = z.infer<typeof Mode>;

/** Who wrote a chat message. */
export const ChatRole = z.enum(["user", "assistant", "system", "tool"]);
/** One of the chat roles. */
export type ChatRole = z.infer<typeof ChatRole>;

/** One message of the conversation as the client sends it. */
export const ChatMessage = z.object({
  role: ChatRole,
  content: z.string().max(LIMITS.maxMessageChars, {
    error:
      `Message content is longer than ${LIMITS.maxMessageChars} characters; shorten it or split it`,
  }),
  name: z.string().max(200).optional(),
  createdAt: z.string().max(100).optional(),
}).strict();
/** A chat message. */
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * Tool metadata as it crosses the wire: name, description and the JSON Schema
 * of its args. (In process a tool also has its Zod schema and `run`, see
 * `shared/tools/tool.ts`.)
 */
export const ToolMetadata = z.object({
  name: z.string().min(1).max(64),
  description: z.string().max(4_000).optional().default(""),
  argsSchema: z.record(z.string(), z.unknown()).optional(),
}).strict();
/** Tool metadata on the wire. */
export type ToolMetadata = z.infer<typeof ToolMetadata>;

/** One step of a plan: a tool and its args. */
export const PlannedAction = z.object({
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
});
/** A planned step. */
export type PlannedAction = z.infer<typeof PlannedAction>;

/** The trace entry of one executed (or skipped) step. */
export const ActionResult = z.object({
  tool: z.string(),
  input: z.unknown(),
  output: z.unknown(),
  success: z.boolean(),
  error: z.string().optional(),
  /** Why a step failed, as a stable code (UNKNOWN_TOOL, TOOL_NOT_PERMITTED, ...). */
  code: z.string().optional(),
  durationMs: z.number(),
});
/** A trace entry. */
export type ActionResult = z.infer<typeof ActionResult>;

/** Keys the loop sets in `context` itself; a request may not supply them. */
export const RESERVED_CONTEXT_KEYS = [
  "embeddedMessage",
  "recentMessages",
  "semanticMatches",
  "sessionId",
  "mode",
] as const;

const sessionId = z.string()
  .min(1, { error: "sessionId must not be empty" })
  .max(LIMITS.maxSessionIdChars, {
    error: `sessionId is longer than ${LIMITS.maxSessionIdChars} characters`,
  });

/** The body of `POST /mcp-loop`. */
export const MCPRequest = z.object({
  mode: Mode,
  sessionId,
  messages: z.array(ChatMessage)
    .min(1, { error: "messages must hold at least one message" })
    .max(LIMITS.maxMessages, {
      error: `messages holds more than ${LIMITS.maxMessages} entries; send only the recent ones`,
    }),
  context: z.record(z.string(), z.unknown()).optional(),
  plannerRecommendations: z.array(z.unknown()).max(LIMITS.maxListEntries)
    .optional(),
  availableTools: z.array(ToolMetadata).max(LIMITS.maxListEntries).optional(),
}).strict().superRefine((request, ctx) => {
  for (const key of RESERVED_CONTEXT_KEYS) {
    if (request.context?.[key] !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["context", key],
        message: `context may not set "${key}": the loop sets it itself`,
      });
    }
  }
});
/** A validated loop request. */
export type MCPRequest = z.infer<typeof MCPRequest>;

/** The successful response of `POST /mcp-loop`. */
export const MCPResponse = z.object({
  success: z.literal(true),
  data: z.object({
    context: z.record(z.string(), z.unknown()),
    intermediateResults: z.array(ActionResult),
    plan: z.array(PlannedAction),
    semanticMatches: z.array(z.unknown()).optional(),
    summaryMessage: z.string().optional(),
  }),
});
/** A loop response. */
export type MCPResponse = z.infer<typeof MCPResponse>;

/** The body of every error response. */
export const ErrorBody = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});
/** An error response body. */
export type ErrorBody = z.infer<typeof ErrorBody>;
