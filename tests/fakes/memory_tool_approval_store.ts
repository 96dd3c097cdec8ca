/**
 * An in-memory `ToolApprovalStore` for tests, with the SQL store's semantics:
 * records per owner, an answer that wins only while the record is pending,
 * unexpired and names the same call. The shared suite runs against it and
 * against PGlite, so it cannot drift.
 */
import type { Caller } from "../../shared/ports.ts";
import type {
  ApprovedCall,
  ToolApprovalAnswer,
  ToolApprovalStatus,
  ToolApprovalStore,
} from "../../shared/runs/tool_approval_store.ts";

interface Stored extends ApprovedCall {
  owner: string;
  status: ToolApprovalStatus;
  expiresAt: Date;
}

/** The fake; `records` is public so tests can look. */
export class MemoryToolApprovalStore implements ToolApprovalStore {
  readonly records = new Map<string, Stored>();

  create(caller: Caller, call: ApprovedCall & { expiresAt: Date }): Promise<string> {
    const id = crypto.randomUUID();
    this.records.set(id, {
      owner: caller.owner,
      tool: call.tool,
      argsDigest: call.argsDigest,
      status: "pending",
      expiresAt: new Date(call.expiresAt.getTime()),
    });
    return Promise.resolve(id);
  }

  answer(
    caller: Caller,
    id: string,
    { tool, argsDigest, approved, now }: ApprovedCall & { approved: boolean; now: Date },
  ): Promise<ToolApprovalAnswer> {
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
    return Promise.resolve({ kind: "won" });
  }
}
