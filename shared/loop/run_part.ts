/**
 * What a runner needs to persist its runs, and the part a persisted run plays
 * in a drive: the approval gate over its progress, and its audit log.
 */
import type { AuditLog } from "../ports.ts";
import { type ApprovalPolicy, approvalPolicy } from "../runs/approval_policy.ts";
import type { RunEventHub, RunningRuns } from "../runs/run_events.ts";
import type { RunSession } from "../runs/run_session.ts";
import type { RunBase, RunStore } from "../runs/run_store.ts";
import { approvalGate } from "./approval_gate.ts";
import type { RunPart } from "./drive.ts";

/** Persisted runs: where they are kept, and how they wait, go on and stop. */
export interface RunsDeps {
  store: RunStore;
  /** Live events within this process. */
  hub: RunEventHub;
  /** The runs this process executes (a cancel reaches them at once). */
  running: RunningRuns;
  /** Which calls wait for a person (default: `MCP_LOOP_APPROVAL=destructive`). */
  approval?: ApprovalPolicy;
  /** How long a pending approval may wait (default 24 h). */
  approvalTtlMs?: number;
  /** Where the audit rows of steps that ran before a run waits or stops go. */
  audit?: AuditLog;
  /** How often a run paused at its deadline goes on by itself (default 0: never). */
  backgroundContinuations?: number;
  /** Lets work outlive the request (the edge runtime's `EdgeRuntime.waitUntil`). */
  keepAlive?: (work: Promise<unknown>) => void;
}

/** The approvals a run waits for by default: tools that say so, and destructive ones. */
const DEFAULT_APPROVAL = approvalPolicy("destructive");
const DAY_MS = 24 * 60 * 60 * 1000;

/** A persisted run's part in a drive. */
export function runPart(
  runs: RunsDeps,
  session: RunSession,
  base: RunBase,
  continueLater: () => void,
  { baseUnsaved }: { baseUnsaved: boolean },
): RunPart {
  return {
    baseUnsaved,
    session,
    running: runs.running,
    audit: runs.audit,
    base,
    leaseMarginMs: 30_000,
    continueLater,
    hooks: (progress, state) => ({
      gate: approvalGate({
        policy: runs.approval ?? DEFAULT_APPROVAL,
        caller: session.caller,
        progress,
        ttlMs: runs.approvalTtlMs ?? DAY_MS,
        round: () => state.open?.round ?? state.roundsDone + 1,
      }),
    }),
  };
}
