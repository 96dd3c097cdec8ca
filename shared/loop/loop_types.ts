/**
 * The loop's tunables, dependencies and per-run options (re-exported by
 * runner.ts, the loop's entry point), and the port a durable-run keeper
 * implements (shared/runs/engine.ts).
 */
import type { MCPRequest, MCPResponse, RunView } from "../contracts.ts";
import type { ApprovalDecision } from "../contracts.ts";
import type { Caller, ConversationStore, Embedder, Logger, Planner } from "../ports.ts";
import type { LoopCosts } from "./usage.ts";
import type { CompactionDeps } from "./compaction.ts";
import type { ToolPolicy } from "../tools/tool_policy.ts";
import type { ToolServices } from "../tools/tool.ts";
import type { ToolRegistry } from "../tools/tool_registry.ts";
import type { LoopEventListener } from "./events.ts";
import type { RefinementDeps } from "./refinement_stage.ts";
import type { RoundTiming } from "./rounds.ts";
import type { ToolSearch } from "./tool_selection.ts";

export type { LoopCosts } from "./usage.ts";

/** Tunables of the loop. */
export interface LoopOptions {
  /** Whole-request deadline in ms (default 10 000, the source's "within 10 s"). */
  deadlineMs: number;
  /** Per-step timeout in ms (default 8 000; a step never outlives the deadline). */
  stepTimeoutMs: number;
  /** What an unknown tool in a plan does: skip and record (default) or fail the request. */
  unknownTool: "skip" | "fail";
  /** What invalid args do: fail the request before anything runs (default) or skip the step. */
  invalidArgs: "fail" | "skip";
  /** Most rounds per request unless the request says (default 3; 1 is a one-shot plan). */
  maxRounds: number;
}

/** The defaults of {@link LoopOptions}. */
export const DEFAULT_LOOP_OPTIONS: Readonly<LoopOptions> = Object.freeze({
  deadlineMs: 10_000,
  stepTimeoutMs: 8_000,
  unknownTool: "skip",
  invalidArgs: "fail",
  maxRounds: 3,
});

/** What the loop depends on. */
export interface LoopDeps {
  registry: ToolRegistry;
  planner: Planner;
  embedder: Embedder;
  store: ConversationStore;
  logger?: Logger;
  options?: Partial<LoopOptions>;
  /** Which tools each mode and caller may use (default: every tool for everyone). */
  policy?: ToolPolicy;
  /** Refinement loops and their scorer, for requests with `refinement` (see refinement_stage.ts). */
  refinement?: RefinementDeps;
  /** The caller-bound clients tools get (supabase-js, the database). */
  services?: ToolServices;
  /**
   * Durable runs: each request a stored run that can wait for a person's
   * approval, pause at its deadline, be resumed and be cancelled (a
   * `RunEngine`, shared/runs/engine.ts). Without it a run lives in its request.
   */
  runs?: RunKeeper;
  /** Tool search for large catalogs (without it the planner is offered every permitted tool). */
  toolSearch?: ToolSearch;
  /** Prices and budgets of model calls (see usage.ts). */
  costs?: LoopCosts;
  /** Summaries of long sessions' older messages (see compaction.ts); none: recent messages only. */
  compaction?: CompactionDeps;
}

/** The loop's dependencies with its options resolved: what a turn runs with. */
export interface LoopParts extends Omit<LoopDeps, "options" | "logger" | "runs"> {
  options: LoopOptions;
  logger: Logger;
}

/** Per-run options. */
export interface RunOptions {
  /** Who is calling (default: anonymous). */
  caller?: Caller;
  /** Progress events (with their run event number when durable); a throwing listener is ignored. */
  onEvent?: LoopEventListener;
  /** Aborts the run (a caller stopping it; the HTTP layer leaves durable runs to go on). */
  signal?: AbortSignal;
  /** Correlates audit rows with logs. */
  requestId?: string;
  /** Filled with the milliseconds each stage took (context, plan, execute, score, finalize). */
  stageTimings?: Record<string, number>;
  /** Filled with each round's timings (plan, execute, score). */
  roundTimings?: RoundTiming[];
}

/** What resuming a run takes: a person's decisions on its pending calls, if it waits for them. */
export interface ResumeOptions extends RunOptions {
  approvals?: readonly ApprovalDecision[];
}

/** Keeps runs: starts them as stored runs, resumes and cancels them by id. */
export interface RunKeeper {
  start(loop: LoopParts, request: MCPRequest, options: RunOptions): Promise<MCPResponse>;
  resume(loop: LoopParts, runId: string, options: ResumeOptions): Promise<MCPResponse>;
  /** Stops a run: at once if it waits or is paused, else at its next step boundary. */
  cancel(runId: string, options: { caller?: Caller }): Promise<RunView>;
}
