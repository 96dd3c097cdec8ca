/**
 * The wire types of `POST /mcp-loop` as the client sees them, in plain
 * TypeScript so that `deno task build:client` can copy them into a
 * self-contained `.d.ts` (no zod). They restate `shared/contracts.ts`:
 * `tests/client/types_test.ts` fails to type-check when the two differ.
 */

/** One of the request modes. */
export type Mode = "analyst" | "candidate" | "hiring" | "general";

/** Who wrote a chat message. */
export type ChatRole = "user" | "assistant" | "system" | "tool";

/** One message of the conversation as the client sends it. */
export interface ChatMessage {
  role: ChatRole;
  content: string;
  name?: string;
  createdAt?: string;
}

/** A tool the client offers, with the JSON Schema of its args. */
export interface ToolMetadata {
  name: string;
  /** Defaults to "". */
  description?: string;
  argsSchema?: Record<string, unknown>;
}

/** A refinement loop type. */
export type LoopTypeName = "plan" | "spec" | "build_plan" | "build_code";

/** Quality-driven refinement of a request: the loop to score each round against. */
export interface RefinementRequest {
  loopType: LoopTypeName;
  /** Continue this loop of the caller's (8 lowercase hex characters) instead of starting one. */
  loopId?: string;
}

/** A request as a client sends it (the server fills in the defaults). */
export interface LoopRequest {
  mode: Mode;
  sessionId: string;
  /** At least one message. */
  messages: ChatMessage[];
  context?: Record<string, unknown>;
  plannerRecommendations?: unknown[];
  availableTools?: ToolMetadata[];
  /** Most rounds for this request (1 is a one-shot plan; default the option loop.maxRounds, 3). */
  maxRounds?: number;
  refinement?: RefinementRequest;
  /** Most model tokens (prompt and completion) this run may use; with the option costs.maxTokens, the lower. */
  maxTokens?: number;
  /** Most US dollars this run's model calls may cost; with MCP_LOOP_MAX_COST_USD, the lower. */
  maxCostUsd?: number;
}

/** One step of a plan: a tool and its args. */
export interface PlannedAction {
  tool: string;
  args: Record<string, unknown>;
}

/** A plan step as the response reports it, with the round it was planned in. */
export interface ReportedAction extends PlannedAction {
  round?: number;
}

/** The trace entry of one executed (or skipped) step. */
export interface ActionResult {
  tool: string;
  input: unknown;
  output: unknown;
  success: boolean;
  error?: string;
  /** Why a step failed, as a stable code (UNKNOWN_TOOL, TOOL_NOT_PERMITTED, ...). */
  code?: string;
  durationMs: number;
  /** The round the step ran in (1 for a one-round run). */
  round?: number;
}

/** Why a run stopped. */
export type StopReason =
  | "finalized"
  | "empty_plan"
  | "max_rounds"
  | "refinement_completed"
  | "refinement_user_input"
  | "deadline"
  | "planner_failed"
  | "cancelled"
  | "approval_required"
  | "budget";

/** Model use of one run, summed over planner, scorer and summary calls. */
export interface Usage {
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens the provider served from its cache; present once a call reported them. */
  cachedTokens?: number;
  /** Tokens of the embedding calls; present once an embedding model reported them. */
  embeddingTokens?: number;
  /** US dollars of the calls whose model has a price (cached prompt tokens at the cached price). */
  costUsd?: number;
}

/** A refinement loop as the refinement tools return it. */
export interface LoopOutput {
  id: string;
  status: "initialized" | "in_progress" | "refine" | "completed" | "user_input";
  loop_type: LoopTypeName;
  current_score: number | null;
  score_history: number[];
  iteration: number;
  threshold: number;
  max_iterations: number;
  created_at: string;
  updated_at: string;
}

/** The response's `data`: the trace of one run. */
export interface LoopResult {
  context: Record<string, unknown>;
  intermediateResults: ActionResult[];
  plan: ReportedAction[];
  semanticMatches?: unknown[];
  summaryMessage?: string;
  /** How many rounds ran. */
  rounds?: number;
  stopReason?: StopReason;
  usage?: Usage;
  /** The refinement loop after the run, when the request asked for refinement. */
  refinement?: LoopOutput;
  /** The persisted run: `/mcp-loop/runs/{runId}` shows, follows, approves and cancels it. */
  runId?: string;
  /** The calls the run waits for a person to approve (`stopReason: "approval_required"`). */
  pendingApprovals?: PendingApproval[];
}

/** A tool call waiting for a person's yes or no. */
export interface PendingApproval {
  /** What an approval names. */
  id: string;
  tool: string;
  /** The args the call would run with (step references resolved). */
  args: Record<string, unknown>;
  round: number;
  /** The call's step: its place in `intermediateResults`. */
  step: number;
  /** When the approval lapses (ISO 8601). */
  expiresAt: string;
}

/** The body of a successful response. */
export interface LoopResponse {
  success: true;
  data: LoopResult;
}

/** The server's error: a stable code (VALIDATION_FAILED, AUTH_REQUIRED, ...), a message, details. */
export interface ServerError {
  code: string;
  message: string;
  details?: unknown;
}

/** The body of an error response (and the `error` event's data). */
export interface ErrorBody {
  success: false;
  error: ServerError;
}

/** A stored message as the `context` event shows it. */
export interface ContextMessage {
  id: string;
  role: string;
  /** The first characters of its text (120 at most, then "…"). */
  preview: string;
  createdAt: string;
  /** Cosine similarity to the latest message (semantic matches only). */
  similarity?: number;
  /** The rankings that found it, full-text and/or vector (semantic matches only). */
  foundBy?: ("full_text" | "vector")[];
}

/**
 * One progress event of a streamed run: `context`, then per round
 * `round_start`, `plan`, `step_start`/`step_end` per step (and `score` in a
 * refinement run), then `summary` when there is one.
 */
export type LoopEvent =
  | {
    type: "context";
    recentMessages: number;
    semanticMatches: number;
    embeddingModel: string;
    /** The messages themselves, as the planner sees them (no vectors). */
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

/** One event of a streamed run: the progress events, then `result` or `error`. */
export type StreamEvent =
  | LoopEvent
  | { type: "result"; data: LoopResult }
  | { type: "error"; error: ServerError };

/** Where a run stands. `paused`: stopped at its deadline with its state saved (resumable). */
export type RunStatus =
  | "running"
  | "waiting_approval"
  | "paused"
  | "completed"
  | "failed"
  | "cancelled";

/** One decision on a pending call (`POST /mcp-loop/runs/{runId}/approvals`). */
export interface ApprovalDecision {
  /** The pending approval's `id`. */
  id: string;
  approved: boolean;
  /** Why it was denied (the planner sees it next round). */
  reason?: string;
}

/** A run as `GET /mcp-loop/runs/{runId}` shows it to its caller. */
export interface RunView {
  runId: string;
  sessionId: string;
  status: RunStatus;
  stopReason?: string;
  /** The calls still waiting for a decision. */
  pendingApprovals: PendingApproval[];
  rounds: number;
  /** Every planned step so far, with the round it was planned in. */
  plan: (PlannedAction & { round: number })[];
  intermediateResults: ActionResult[];
  summaryMessage?: string;
  usage: Usage;
  /** The refinement loop the run opened or continued, if it is a refinement run (kept if it is cancelled). */
  refinementLoopId?: string;
  /** The number of its last event (`events(runId, { lastEventId })` goes on from there). */
  lastEventId: number;
  error?: { code: string; message: string };
  createdAt: string;
  updatedAt: string;
}

/** An event of a run's log with its number (the SSE `id:`), as `events()` yields it. */
export type RunEvent = StreamEvent & { id: number };

/** A value, or a function giving it (called before each request), maybe asynchronously. */
export type Resolvable<T> = T | (() => T | Promise<T>);
