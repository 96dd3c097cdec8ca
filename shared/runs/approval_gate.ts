/**
 * The approval gate of a durable run's steps: a call the approval rule names
 * (tools/approval_rule.ts) gets an approval record (the same store MCP calls
 * use) and is held the first time it comes up; when the run comes back with
 * the person's answer it runs — once: a started write is never run again — or
 * is refused with their reason.
 */
import type { StepGate } from "../loop/executor.ts";
import type { TurnState } from "../loop/turn_state.ts";
import type { Caller } from "../ports.ts";
import type { ApprovalRule, CallOrigin } from "../tools/approval_rule.ts";
import type { ApprovalVerdict } from "../tools/invoke_tool.ts";
import { type Answer, type ApprovalStore, callDigest } from "./approval_store.ts";

/** What the gate needs. */
export interface GateInput {
  rule: ApprovalRule;
  store: ApprovalStore;
  caller: Caller;
  runId: string;
  /** The run's state: its pending approvals (the gate adds to them and takes the answered ones). */
  state: TurnState;
  /** The answers given so far to the run's pending approvals. */
  answers: ReadonlyMap<string, Answer>;
  ttlMs: number;
  now: () => number;
}

/** The gate of one round, planned from a prompt described by `origin`. */
export function approvalGate(input: GateInput, origin: CallOrigin): StepGate {
  return async (position, tool, args): Promise<ApprovalVerdict> => {
    const { state } = input;
    const known = state.pendingApprovals.find((pending) => pending.step === position);
    if (known) {
      const answer = input.answers.get(known.id);
      if (!answer) return { kind: "pending", approvalId: known.id };
      // The answer is used once: the call runs now, or is refused, and is no longer pending.
      state.pendingApprovals = state.pendingApprovals.filter((pending) => pending !== known);
      if (answer.approved) return { kind: "run" };
      const why = answer.reason ? `: ${answer.reason}` : "";
      return { kind: "refused", code: "APPROVAL_DENIED", error: `a person denied this call${why}` };
    }
    if (!input.rule(tool, args, input.caller, origin)) return { kind: "run" };
    const expiresAt = new Date(input.now() + input.ttlMs);
    const id = await input.store.create(input.caller, {
      tool: tool.name,
      argsDigest: await callDigest(args),
      expiresAt,
      runId: input.runId,
      step: position,
    });
    state.pendingApprovals.push({
      id,
      tool: tool.name,
      args: (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>,
      round: state.open?.round ?? state.roundsDone + 1,
      step: position,
      expiresAt: expiresAt.toISOString(),
    });
    return { kind: "pending", approvalId: id };
  };
}
