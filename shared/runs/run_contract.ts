/**
 * The wire contract of runs that outlive their request: a call waiting for a
 * person's approval, the approvals a client sends back, and what
 * `GET /mcp-loop/runs/{runId}` answers.
 */
import { z } from "zod";

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
