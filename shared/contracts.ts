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
  /** Most rounds (plan, then execute) one request may take. */
  maxRounds: 5,
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

/** A plan step as the response reports it: the round it was planned in. */
export const PlanEntry = PlannedAction.extend({ round: z.int().min(1) });
/** A reported plan step. */
export type PlanEntry = z.infer<typeof PlanEntry>;

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
  /** The round the step ran in (1 for a one-round run). */
  round: z.int().min(1).optional(),
});
/** A trace entry. */
export type ActionResult = z.infer<typeof ActionResult>;

/** Keys the loop sets in `context` itself; a request may not supply them. */
export const RESERVED_CONTEXT_KEYS = [
  "embeddedMessage",
  "recentMessages",
  "semanticMatches",
  "workingMemory",
  "sessionId",
  "mode",
  "sessionSummary",
] as const;

const sessionId = z.string()
  .min(1, { error: "sessionId must not be empty" })
  .max(LIMITS.maxSessionIdChars, {
    error: `sessionId is longer than ${LIMITS.maxSessionIdChars} characters`,
  });

/** The refinement loop types (seed 000). */
export const LoopTypeName = z.enum(["plan", "spec", "build_plan", "build_code"]);
/** A refinement loop type. */
export type LoopTypeName = z.infer<typeof LoopTypeName>;

/** Quality-driven refinement of a request: the loop to score each round against. */
export const RefinementRequest = z.object({
  loopType: LoopTypeName,
  /** Continue this loop of the caller's (8 lowercase hex characters) instead of starting one. */
  loopId: z.string().regex(/^[0-9a-f]{8}$/, {
    error: "refinement.loopId is the 8 lowercase hex characters of an existing loop",
  }).optional(),
}).strict();
/** A refinement request. */
export type RefinementRequest = z.infer<typeof RefinementRequest>;

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
  /** Most rounds for this request (1 is a one-shot plan; default the option loop.maxRounds, 3). */
  maxRounds: z.int({ error: `maxRounds must be an integer from 1 to ${LIMITS.maxRounds}` })
    .min(1, { error: `maxRounds must be an integer from 1 to ${LIMITS.maxRounds}` })
    .max(LIMITS.maxRounds, { error: `maxRounds must be an integer from 1 to ${LIMITS.maxRounds}` })
    .optional(),
  refinement: RefinementRequest.optional(),
  /** Most model tokens (prompt and completion) this run may use; with the option costs.maxTokens, the lower. */
  maxTokens: z.int({ error: "maxTokens must be a positive integer" })
    .min(1, { error: "maxTokens must be a positive integer" }).optional(),
  /** Most US dollars this run's model calls may cost; with MCP_LOOP_MAX_COST_USD, the lower. */
  maxCostUsd: z.number({ error: "maxCostUsd must be a positive number of dollars" })
    .positive({ error: "maxCostUsd must be a positive number of dollars" }).optional(),
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

/** Why a run stopped. */
export const StopReason = z.enum([
  "finalized",
  "empty_plan",
  "max_rounds",
  "refinement_completed",
  "refinement_user_input",
  "deadline",
  "planner_failed",
  "cancelled",
  "approval_required",
  "budget",
]);
/** Why a run stopped. */
export type StopReason = z.infer<typeof StopReason>;

/** Model use of one run, summed over planner, scorer and summary calls. */
export const Usage = z.object({
  modelCalls: z.int(),
  promptTokens: z.int(),
  completionTokens: z.int(),
  /** Prompt tokens the provider served from its cache; present once a call reported them. */
  cachedTokens: z.int().optional(),
  /** Tokens of the embedding calls; present once an embedding model reported them. */
  embeddingTokens: z.int().optional(),
  /** US dollars of the calls whose model has a price (cached prompt tokens at the cached price). */
  costUsd: z.number().optional(),
});
/** Model use of one run. */
export type Usage = z.infer<typeof Usage>;

/** A refinement loop as the refinement tools return it. */
export const LoopOutput = z.object({
  id: z.string(),
  status: z.enum(["initialized", "in_progress", "refine", "completed", "user_input"]),
  loop_type: LoopTypeName,
  current_score: z.number().nullable(),
  score_history: z.array(z.number()),
  iteration: z.number(),
  threshold: z.number(),
  max_iterations: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
/** A refinement loop's output shape. */
export type LoopOutput = z.infer<typeof LoopOutput>;

/*
 * Runs that outlive their request: a call waiting for a person's approval,
 * the approvals a client sends back, and where a run stands.
 */

/** Where a run stands. `paused`: stopped at its deadline with its state saved (resumable). */
export const RunStatus = z.enum([
  "running",
  "waiting_approval",
  "paused",
  "completed",
  "failed",
  "cancelled",
]);
/** Where a run stands. */
export type RunStatus = z.infer<typeof RunStatus>;

/** A tool call waiting for a person's yes or no. */
export const PendingApproval = z.object({
  /** What an approval names. */
  id: z.string(),
  tool: z.string(),
  /** The args the call would run with (step references resolved). */
  args: z.record(z.string(), z.unknown()),
  round: z.int().min(1),
  /** The call's step: its place in `intermediateResults` (the `n` of `/steps/<n>`). */
  step: z.int().min(0),
  /** When the approval lapses (ISO 8601); afterwards approving it answers 410. */
  expiresAt: z.string(),
});
/** A call waiting for approval. */
export type PendingApproval = z.infer<typeof PendingApproval>;

/** One decision on a pending call. */
export const ApprovalDecision = z.object({
  id: z.string().min(1).max(100),
  approved: z.boolean(),
  /** Why it was denied (the planner sees it next round). */
  reason: z.string().max(2_000).optional(),
}).strict();
/** One decision. */
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/** The body of `POST /mcp-loop/runs/{runId}/approvals`. */
export const ApprovalsBody = z.object({
  approvals: z.array(ApprovalDecision).min(1, {
    error: "approvals must hold at least one decision",
  })
    .max(20),
}).strict();
/** Approvals sent back. */
export type ApprovalsBody = z.infer<typeof ApprovalsBody>;

/** A run as its caller sees it (`GET /mcp-loop/runs/{runId}`). */
export interface RunView {
  runId: string;
  sessionId: string;
  status: RunStatus;
  stopReason?: string;
  /** The calls still waiting for a decision. */
  pendingApprovals: PendingApproval[];
  rounds: number;
  plan: PlanEntry[];
  intermediateResults: ActionResult[];
  summaryMessage?: string;
  usage: Usage;
  /** The refinement loop the run opened or continued, if it is a refinement run (kept if it is cancelled). */
  refinementLoopId?: string;
  /** The number of its last event (`GET …/events` with `Last-Event-ID` goes on from there). */
  lastEventId: number;
  error?: { code: string; message: string };
  createdAt: string;
  updatedAt: string;
}

/**
 * The successful response of `POST /mcp-loop`: the seed's fields (a one-round
 * run reads exactly as before), plus how the run went over its rounds.
 */
export const MCPResponse = z.object({
  success: z.literal(true),
  data: z.object({
    context: z.record(z.string(), z.unknown()),
    intermediateResults: z.array(ActionResult),
    plan: z.array(PlannedAction.extend({ round: z.int().min(1).optional() })),
    semanticMatches: z.array(z.unknown()).optional(),
    summaryMessage: z.string().optional(),
    /** How many rounds ran. */
    rounds: z.int().optional(),
    stopReason: StopReason.optional(),
    usage: Usage.optional(),
    /** The refinement loop after the run, when the request asked for refinement. */
    refinement: LoopOutput.optional(),
    /** The persisted run: `/mcp-loop/runs/{runId}` shows, follows, approves and cancels it. */
    runId: z.string().optional(),
    /** The calls the run waits for a person to approve (`stopReason: "approval_required"`). */
    pendingApprovals: z.array(PendingApproval).optional(),
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

/*
 * The events of a streamed run (`Accept: text/event-stream`): `context`, then
 * per round `round_start`, `plan`, `step_start`/`step_end` per step (and
 * `score` in a refinement run), then `summary` when there is one, and last
 * `result` (the response body) or `error` (the error body).
 */

/**
 * A recalled message as the `context` event names it: its id, who wrote it,
 * the start of its text, and for matches how well and by which ranking it
 * matched. The event refers to messages; it does not copy them (the run's
 * response carries them whole).
 */
export interface ContextMessage {
  id: string;
  role: string;
  /** The first characters of its text ({@link CONTEXT_PREVIEW_CHARS} at most, then "…"). */
  preview: string;
  createdAt: string;
  /** Cosine similarity to the latest message (semantic matches only). */
  similarity?: number;
  /** The rankings that found it, full-text and/or vector (semantic matches only). */
  foundBy?: ("full_text" | "vector")[];
}

/** The longest preview of a recalled message in the `context` event. */
export const CONTEXT_PREVIEW_CHARS = 120;

/** One progress event. */
export type LoopEvent =
  | {
    type: "context";
    recentMessages: number;
    semanticMatches: number;
    embeddingModel: string;
    /** Which messages were recalled (references with a preview; no vectors). */
    messages: { recent: ContextMessage[]; matches: ContextMessage[] };
  }
  | { type: "round_start"; round: number; maxRounds: number }
  | { type: "plan"; round: number; plan: PlannedAction[]; repaired: boolean }
  | {
    type: "step_start";
    index: number;
    round: number;
    tool: string;
    /** The args as planned (step references not yet resolved). */
    args: Record<string, unknown>;
  }
  | { type: "step_end"; index: number; round: number; result: ActionResult }
  | {
    type: "score";
    round: number;
    score: number;
    feedback: string;
    threshold: number;
    /** What the refinement policy decided: refine, completed or user_input. */
    decision: string;
    loop: LoopOutput;
  }
  | { type: "summary"; summaryMessage: string }
  /**
   * First, when the run is persisted: where to follow it after a disconnect. On
   * `GET …/runs/{runId}/events` with a `Last-Event-ID` past the run's last event,
   * the only event, with `state`: where the run stands.
   */
  | { type: "run"; runId: string; state?: RunView }
  /** The run paused before calls that need a person's approval. */
  | { type: "approval_required"; pendingApprovals: PendingApproval[] };
