/**
 * The one-time approval records of MCP tool calls: a record is written
 * pending when a person is asked to approve one call (a tool and a digest of
 * its arguments), and answered once. An answer wins only while the record is
 * pending, unexpired and names the same call, so a replayed retry, or two
 * racing ones, cannot both run the tool.
 */
import type { Caller } from "../ports.ts";

/** Where an approval stands. */
export type ToolApprovalStatus = "pending" | "approved" | "declined";

/** The call an approval is for. */
export interface ApprovedCall {
  tool: string;
  /** {@link callDigest} of the call's parsed arguments. */
  argsDigest: string;
}

/**
 * How an answer ended: `won` (this answer is the one recorded); `answered`
 * (it had been answered before: `status` says how); `lapsed` (still pending
 * past its expiry); `unknown` (no such approval of this caller for this call).
 */
export type ToolApprovalAnswer =
  | { kind: "won" }
  | { kind: "answered"; status: Exclude<ToolApprovalStatus, "pending"> }
  | { kind: "lapsed"; expiresAt: string }
  | { kind: "unknown" };

/** Persists approvals of MCP tool calls, each visible only to its caller. */
export interface ToolApprovalStore {
  /** A pending approval of `call`, lapsing at `expiresAt`; its id. */
  create(caller: Caller, call: ApprovedCall & { expiresAt: Date }): Promise<string>;
  /** Records the person's answer, once (see {@link ToolApprovalAnswer}); `now` decides lapsing. */
  answer(
    caller: Caller,
    id: string,
    answer: ApprovedCall & { approved: boolean; now: Date },
  ): Promise<ToolApprovalAnswer>;
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
