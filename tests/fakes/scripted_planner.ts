/**
 * A test planner that plays back queued replies and records what it was asked.
 * A reply is a plan (returned as is, even if malformed), an Error (thrown), or a
 * function of the input.
 */
import type { PlannedAction } from "../../shared/contracts.ts";
import type { PlanFeedback, PlanInput, Planner } from "../../shared/ports.ts";

/** One queued reply. */
export type ScriptedReply =
  | unknown[]
  | Error
  | ((input: PlanInput) => Promise<unknown> | unknown);

/** Plays back `replies` in order (the last one repeats). */
export class ScriptedPlanner implements Planner {
  readonly calls: PlanInput[] = [];
  readonly #replies: ScriptedReply[];

  constructor(...replies: ScriptedReply[]) {
    this.#replies = replies.length > 0 ? replies : [[]];
  }

  async plan(input: PlanInput): Promise<PlannedAction[]> {
    this.calls.push(input);
    const reply = this.#replies.length > 1 ? this.#replies.shift()! : this.#replies[0];
    if (reply instanceof Error) throw reply;
    const value = typeof reply === "function" ? await reply(input) : reply;
    return value as PlannedAction[];
  }
}

/** A scripted planner that can also repair: its repair replies come from a second queue. */
export class ScriptedRepairingPlanner extends ScriptedPlanner {
  readonly repairs: { input: PlanInput; feedback: PlanFeedback }[] = [];
  readonly #repairReplies: ScriptedReply[];

  constructor(first: ScriptedReply, ...repairReplies: ScriptedReply[]) {
    super(first);
    this.#repairReplies = repairReplies;
  }

  async repair(input: PlanInput, feedback: PlanFeedback): Promise<PlannedAction[]> {
    this.repairs.push({ input, feedback });
    const reply = this.#repairReplies.shift() ?? [];
    if (reply instanceof Error) throw reply;
    const value = typeof reply === "function" ? await reply(input) : reply;
    return value as PlannedAction[];
  }
}
