/**
 * The door every caller route (the loop, its runs, the data routes) opens
 * first: the Host and Origin rules, the caller's identity, then the
 * per-caller limits, in that order — so nothing unauthenticated is counted
 * against a caller and nothing refused reads a body.
 */
import type { Authenticate } from "../auth/authenticator.ts";
import { AppError } from "../errors.ts";
import type { Caller } from "../ports.ts";
import { type CallerLimiter, declaredBytes, NO_CALLER_LIMITS } from "./caller_limits.ts";
import type { HostOriginCheck } from "./host_origin.ts";
import type { RequestTrace } from "./request_trace.ts";

/** What admitting a caller needs. */
export interface CallerDoor {
  authenticate: Authenticate;
  /** The Host and Origin rules (see host_origin.ts); none when not given. */
  hostOrigin?: HostOriginCheck;
  /** Per-caller limits (429 past them); none when not given. */
  limits?: CallerLimiter;
}

/** The request's caller, once admitted; its place under the limits is released when the trace ends. */
export async function admitCaller(
  req: Request,
  trace: RequestTrace,
  { authenticate, hostOrigin, limits = NO_CALLER_LIMITS }: CallerDoor,
): Promise<Caller> {
  const refused = hostOrigin?.(req);
  if (refused) throw new AppError("FORBIDDEN", refused);
  const caller = await authenticate(req);
  trace.caller = caller.owner;
  trace.onEnd(await limits.admit(caller, { bytes: declaredBytes(req) }));
  return caller;
}
