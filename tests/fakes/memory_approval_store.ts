/**
 * An in-memory `ApprovalStore` for tests, with the SQL store's semantics:
 * records per owner, an answer that wins only while the record is pending,
 * unexpired and names the same call. The shared suite runs against it and
 * against PGlite, so it cannot drift.
 */
import type { Caller } from "../../shared/ports.ts";
import type {
  Answer,
  ApprovalAnswer,
  ApprovalRequest,
  ApprovalStatus,
  ApprovalStore,
  ApprovedCall,
} from "../../shared/runs/approval_store.ts";

interface Stored extends ApprovedCall {
  owner: string;
  status: ApprovalStatus;
  expiresAt: Date;
  reason?: string;
  runId?: string;
  step?: number;
}

/** The fake; `records` is public so tests can look. */
export class MemoryApprovalStore implements ApprovalStore {
  readonly records = new Map<string, Stored>();

  create(caller: Caller, request: ApprovalRequest): Promise<string> {
    const id = request.id ?? crypto.randomUUID();
    if (this.records.has(id)) return Promise.reject(new Error(`duplicate approval id ${id}`));
    this.records.set(id, {
      owner: caller.owner,
      tool: request.tool,
      argsDigest: request.argsDigest,
      status: "pending",
      expiresAt: new Date(request.expiresAt.getTime()),
      ...(request.runId ? { runId: request.runId } : {}),
      ...(request.step !== undefined ? { step: request.step } : {}),
    });
    return Promise.resolve(id);
  }

  answer(
    caller: Caller,
    id: string,
    { tool, argsDigest, approved, reason, now }: ApprovedCall & Answer & { now: Date },
  ): Promise<ApprovalAnswer> {
    const record = this.records.get(id);
    if (!record || record.owner !== caller.owner) return Promise.resolve({ kind: "unknown" });
    if (record.tool !== tool || record.argsDigest !== argsDigest) {
      return Promise.resolve({ kind: "unknown" });
    }
    if (record.status !== "pending") {
      return Promise.resolve({ kind: "answered", status: record.status });
    }
    if (record.expiresAt.getTime() <= now.getTime()) {
      return Promise.resolve({ kind: "lapsed", expiresAt: record.expiresAt.toISOString() });
    }
    record.status = approved ? "approved" : "declined";
    if (reason !== undefined) record.reason = reason;
    return Promise.resolve({ kind: "won" });
  }

  answers(caller: Caller, ids: readonly string[]): Promise<Map<string, Answer>> {
    const answers = new Map<string, Answer>();
    for (const id of ids) {
      const record = this.records.get(id);
      if (!record || record.owner !== caller.owner || record.status === "pending") continue;
      answers.set(id, {
        approved: record.status === "approved",
        ...(record.reason ? { reason: record.reason } : {}),
      });
    }
    return Promise.resolve(answers);
  }
}
