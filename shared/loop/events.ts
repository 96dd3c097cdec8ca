/**
 * Progress events of one loop run, delivered through `onEvent` so the HTTP
 * layer can stream them without the runner knowing about HTTP. A run sends
 * `context`, then per round `round_start`, `plan`, `step_start`/`step_end` per
 * step (and `score` in a refinement run), then `summary` when there is one.
 */
import type { ActionResult, LoopOutput, PlannedAction } from "../contracts.ts";

/** A stored message as the `context` event shows it. */
export interface ContextMessage {
  role: string;
  content: string;
  createdAt: string;
  /** Cosine similarity to the latest message (semantic matches only). */
  similarity?: number;
}

/** One progress event. */
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
  | { type: "step_start"; index: number; round: number; tool: string }
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
  | { type: "summary"; summaryMessage: string };

/** Receives progress events; must not throw (a throwing listener is ignored). */
export type LoopEventListener = (event: LoopEvent) => void;
