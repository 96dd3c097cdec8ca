/**
 * Progress events of one loop run, delivered through `onEvent` so the HTTP
 * layer can stream them without the runner knowing about HTTP.
 */
import type { ActionResult, PlannedAction } from "../contracts.ts";

/** One progress event. */
export type LoopEvent =
  | { type: "context"; recentMessages: number; semanticMatches: number; embeddingModel: string }
  | { type: "plan"; plan: PlannedAction[]; repaired: boolean }
  | { type: "step_start"; index: number; tool: string }
  | { type: "step_end"; index: number; result: ActionResult }
  | { type: "summary"; summaryMessage: string };

/** Receives progress events; must not throw (a throwing listener is ignored). */
export type LoopEventListener = (event: LoopEvent) => void;
