/**
 * A test planner that plays back queued replies and records what it was asked.
 * A reply is a plan (returned as is, even if malformed), an Error (thrown), or a
 * function of the input. Replies are used in order; once the last one has been
 * used, a first-round call gets it again (a new run) and a later-round call
 * gets [] (the script has nothing more to do, so the run ends) — except a
 * function, which is asked every time.
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
  #usedLast = false;

  constructor(...replies: ScriptedReply[]) {
    this.#replies = replies.length > 0 ? replies : [[]];
  }

  async plan(input: PlanInput): Promise<PlannedAction[]> {
    this.calls.push(input);
    let reply: ScriptedReply;
    if (this.#replies.length > 1) reply = this.#replies.shift()!;
    else if (
      !this.#usedLast || (input.round ?? 1) === 1 || typeof this.#replies[0] === "function"
    ) {
      reply = this.#replies[0];
      this.#usedLast = true;
    } else reply = [];
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
