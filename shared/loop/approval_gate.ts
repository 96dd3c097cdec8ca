/**
 * The executor's gate for a persisted run: a call the approval policy names
 * is held the first time it comes up (a pending approval is added to the
 * run), and when the run comes back with a person's decision it runs — once:
 * a started write is never run again — or is refused with their reason.
 */
import type { Caller } from "../ports.ts";
import type { ApprovalPolicy } from "../runs/approval_policy.ts";
import type { Progress } from "./checkpoint_codec.ts";
import type { GateVerdict, StepGate } from "./executor.ts";

/** The gate over `progress` (its pending approvals and decisions). */
export function approvalGate(
  {
    policy,
    caller,
    progress,
    ttlMs,
    round,
    now = () => Date.now(),
    newId = () => crypto.randomUUID(),
  }: {
    policy: ApprovalPolicy;
    caller: Caller;
    progress: Progress;
    ttlMs: number;
    /** The round of a step at `position` (for the pending approval). */
    round: (position: number) => number;
    now?: () => number;
    newId?: () => string;
  },
): StepGate {
  return (step, args): GateVerdict => {
    if (step.status !== "ok" && step.status !== "deferred") return { kind: "run" };
    const known = progress.pendingApprovals.find((pending) => pending.step === step.position);
    if (known) {
      const decision = progress.decisions[known.id];
      if (!decision) return { kind: "pending", approvalId: known.id };
      // The answer stays with the step: a resume that reaches it again finds it answered.
      return decision.approved ? { kind: "run" } : { kind: "denied", reason: decision.reason };
    }
    if (!policy(step.tool, args, caller)) return { kind: "run" };
    const id = newId();
    progress.pendingApprovals.push({
      id,
      tool: step.action.tool,
      args: (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>,
      round: round(step.position),
      step: step.position,
      expiresAt: new Date(now() + ttlMs).toISOString(),
    });
    return { kind: "pending", approvalId: id };
  };
}
