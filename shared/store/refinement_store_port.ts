/**
 * The refinement-loop port: a loop's persisted state and the store that keeps
 * it, scoped to the caller.
 */
import type { LoopTypeName } from "../contracts.ts";
import type { Caller } from "../ports.ts";

/** A refinement loop's kind; each has its own quality threshold and iteration limit. */
export type LoopType = LoopTypeName;

/** Where a refinement loop stands. */
export type LoopStatus = "initialized" | "in_progress" | "refine" | "completed" | "user_input";

/** A refinement loop's persisted state. */
export interface LoopState {
  /** 8 lowercase hex characters. */
  id: string;
  loopType: LoopType;
  status: LoopStatus;
  currentScore: number | null;
  scoreHistory: number[];
  iteration: number;
  threshold: number;
  maxIterations: number;
  createdAt: string;
  updatedAt: string;
}

/** Persists refinement loops, each visible only to the caller that created it. */
export interface RefinementStore {
  /** Creates a loop with a fresh id (retrying on an id collision). */
  create(
    caller: Caller,
    loop: { loopType: LoopType; threshold: number; maxIterations: number },
  ): Promise<LoopState>;
  /** The caller's loop; throws LoopNotFoundError. */
  get(caller: Caller, id: string): Promise<LoopState>;
  /** Applies `change` to the caller's loop atomically: concurrent updates run one after another. */
  update(caller: Caller, id: string, change: (state: LoopState) => LoopState): Promise<LoopState>;
  /** The caller's most recent loops, newest first. */
  listRecent(caller: Caller, limit: number): Promise<LoopState[]>;
  /** The caller's loop ids that start with `prefix`, newest first. */
  findIds(caller: Caller, prefix: string, limit: number): Promise<string[]>;
}
