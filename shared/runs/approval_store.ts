/**
 * The approval records: one row per call a person was asked about, written
 * by the same code whether the loop or an MCP client made the call (a loop
 * call's record names its run and step). A record is written pending, and
 * answered once: an answer wins only while the record is pending, unexpired
 * and names the same call (its tool and a digest of its arguments), so a
 * replayed answer, or two racing ones, cannot both run the tool.
 */
import type { Caller } from "../ports.ts";

/** Where an approval stands. */
export type ApprovalStatus = "pending" | "approved" | "declined";

/** The call an approval is for. */
export interface ApprovedCall {
  tool: string;
  /** {@link callDigest} of the call's parsed arguments. */
  argsDigest: string;
}

/** A new approval record. */
export interface ApprovalRequest extends ApprovedCall {
  expiresAt: Date;
  /** The record's id when it is already known (a run of an earlier release names it). */
  id?: string;
  /** The run that holds the call, and the call's step in it (loop calls). */
  runId?: string;
  step?: number;
}

/** A person's answer. */
export interface Answer {
  approved: boolean;
  /** Why it was declined (the planner sees it). */
  reason?: string;
}

/**
 * How an answer ended: `won` (this answer is the one recorded); `answered`
 * (it had been answered before: `status` says how); `lapsed` (still pending
 * past its expiry); `unknown` (no such approval of this caller for this call).
 */
export type ApprovalAnswer =
  | { kind: "won" }
  | { kind: "answered"; status: Exclude<ApprovalStatus, "pending"> }
  | { kind: "lapsed"; expiresAt: string }
  | { kind: "unknown" };

/** Persists approval records, each visible only to its caller. */
export interface ApprovalStore {
  /** A pending approval; its id. */
  create(caller: Caller, request: ApprovalRequest): Promise<string>;
  /** Records the person's answer, once (see {@link ApprovalAnswer}); `now` decides lapsing. */
  answer(
    caller: Caller,
    id: string,
    answer: ApprovedCall & Answer & { now: Date },
  ): Promise<ApprovalAnswer>;
  /** The answers given so far to the approvals `ids` (those still pending are absent). */
  answers(caller: Caller, ids: readonly string[]): Promise<Map<string, Answer>>;
}

/**
 * SHA-256 (base64url) of `args` as canonical JSON (object keys sorted): the
 * same arguments give the same digest whatever their key order.
 */
export async function callDigest(args: unknown): Promise<string> {
  const text = JSON.stringify(
    args ?? null,
    (_key, value) =>
      typeof value === "object" && value !== null && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : value,
  );
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  return btoa(String.fromCharCode(...hash)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}
