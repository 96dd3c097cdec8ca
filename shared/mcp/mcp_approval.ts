/**
 * A person's approval of an MCP `tools/call`, for the tools the approval
 * policy names (`MCP_LOOP_APPROVAL`). The first call is answered with an
 * `input_required` result holding an elicitation (a boolean `approve`) and a
 * sealed `requestState` (the SDK's codec: HMAC-signed, bound to the method
 * and the caller); the retry carrying the person's answer runs the tool or
 * refuses it. The state names a one-time record (tool and argument digest):
 * the answer is recorded once, so a replayed retry never runs the tool again,
 * and a state never runs another call than the one asked about.
 *
 * 2026-07-28 clients get the result as it is (multi round-trip requests);
 * 2025-11-25 clients on a connection that keeps its state (stdio, or an HTTP
 * session: mcp_session_http.ts) get a pushed `elicitation/create` from the
 * SDK's compatibility shim, which re-enters the handler with the answer; a
 * client that can do neither gets a tool error saying how else the call can
 * be approved.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type RequestStateCodec,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { Caller } from "../ports.ts";
import { type ApprovalStore, callDigest } from "../runs/approval_store.ts";
import type { ApprovalMode, ApprovalRule } from "../tools/approval_rule.ts";
import type { ApprovalVerdict } from "../tools/invoke_tool.ts";
import type { ToolDefinition } from "../tools/tool.ts";
import {
  answeredText,
  approvalForm,
  approvalQuestion,
  type CannotAsk,
  cannotAskText,
  declinedText,
  lapsedText,
  mismatchText,
  UNANSWERED_META,
  unansweredText,
} from "./approval_texts.ts";

/** What MCP approvals need; one object per process (its codec is made once). */
export interface McpApprovals {
  /** Which calls need approval. */
  rule: ApprovalRule;
  /** The setting behind `rule`, for the texts. */
  mode: ApprovalMode;
  /** The approval records (one store for the loop and MCP). */
  store: ApprovalStore;
  /** How long an approval waits for its answer (option `runs.approvalTtlMs`). */
  ttlMs: number;
  /** The request-state key: the same on every instance (see request_state_key.ts). */
  key: () => Promise<Uint8Array>;
  now?: () => number;
}

/** The key of the approval in `inputRequests` and `inputResponses`. */
export const APPROVAL_INPUT = "approval";

/** A signed state outlives its approval by this much, so a late answer is told it lapsed. */
const LATE_ANSWER_GRACE_S = 86_400;

/** What an approval's `requestState` carries (signed, not secret). */
interface ApprovalState {
  kind: "approval";
  /** The one-time record. */
  id: string;
  tool: string;
  /** {@link callDigest} of the parsed arguments. */
  args: string;
  /** When the approval lapses (ms since the epoch). */
  exp: number;
}

const RUN: ApprovalVerdict = { kind: "run" };
const codecs = new WeakMap<McpApprovals, Promise<RequestStateCodec<unknown>>>();

/**
 * The process's request-state codec: bound to the method and the caller (the
 * HTTP leg's `authInfo.clientId`), so another caller's state is refused.
 */
export function requestStateCodec(approvals: McpApprovals): Promise<RequestStateCodec<unknown>> {
  let codec = codecs.get(approvals);
  if (!codec) {
    codec = approvals.key().then((key) =>
      createRequestStateCodec<unknown>({
        key,
        ttlSeconds: Math.ceil(approvals.ttlMs / 1000) + LATE_ANSWER_GRACE_S,
        bind: (ctx) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ""}`,
      })
    );
    codecs.set(approvals, codec);
  }
  return codec;
}

/** The server's `requestState.verify` hook: a state that fails it is JSON-RPC -32602. */
export function verifyRequestState(
  approvals: McpApprovals,
): (state: string, ctx: ServerContext) => Promise<unknown> {
  return async (state, ctx) => (await requestStateCodec(approvals)).verify(state, ctx);
}

/**
 * Decides a call of `tool` with parsed `args`: run it, ask the person, or
 * refuse it. `legacyClient` gives the capabilities a 2025-11-25 client
 * declared on this connection (none for a sessionless HTTP request where
 * sessions are offered), undefined where the server cannot send it a request
 * (stateless HTTP without sessions).
 */
export async function mcpApproval(
  { approvals, caller, tool, args, ctx, legacyClient }: {
    approvals: McpApprovals;
    caller: Caller;
    tool: ToolDefinition;
    args: unknown;
    ctx: ServerContext;
    legacyClient: () => ClientCapabilities | undefined;
  },
): Promise<ApprovalVerdict> {
  if (!approvals.rule(tool, args, caller)) return RUN;
  const call = { approvals, caller, tool, args, ctx, digest: await callDigest(args) };
  const state = approvalState(ctx.mcpReq.requestState());
  if (state) return await answer(call, state);
  const cannot = cannotAsk(ctx, legacyClient);
  if (cannot) {
    return refuse("APPROVAL_UNAVAILABLE", cannotAskText(tool.name, approvals.mode, cannot));
  }
  const exp = now(approvals) + approvals.ttlMs;
  const id = await approvals.store.create(caller, {
    tool: tool.name,
    argsDigest: call.digest,
    expiresAt: new Date(exp),
  });
  return await ask(call, { kind: "approval", id, tool: tool.name, args: call.digest, exp });
}

interface Call {
  approvals: McpApprovals;
  caller: Caller;
  tool: ToolDefinition;
  args: unknown;
  ctx: ServerContext;
  digest: string;
}

/** The retry: the person's answer, recorded once. */
async function answer(call: Call, state: ApprovalState): Promise<ApprovalVerdict> {
  const { approvals, tool } = call;
  if (state.tool !== tool.name || state.args !== call.digest) {
    return refuse("APPROVAL_MISMATCH", mismatchText(tool.name));
  }
  const at = now(approvals);
  const lapsed = (expiresAt: string) =>
    refuse("APPROVAL_EXPIRED", lapsedText(tool.name, expiresAt, approvals.ttlMs));
  if (at >= state.exp) return lapsed(new Date(state.exp).toISOString());
  const waited = unansweredWait(call.ctx.mcpReq.inputResponses);
  if (waited !== undefined) return refuse("APPROVAL_EXPIRED", unansweredText(tool.name, waited));
  const view = inputResponse(call.ctx.mcpReq.inputResponses, APPROVAL_INPUT);
  // No answer to our question (missing, or not an elicitation's): ask it again.
  if (view.kind !== "elicit") return await ask(call, state);
  const approved = view.action === "accept" && view.content?.approve === true;
  const recorded = await approvals.store.answer(call.caller, state.id, {
    tool: tool.name,
    argsDigest: call.digest,
    approved,
    now: new Date(at),
  });
  switch (recorded.kind) {
    case "won":
      return approved ? RUN : refuse("APPROVAL_DECLINED", declinedText(tool.name, view.action));
    case "answered":
      return refuse("APPROVAL_USED", answeredText(tool.name, recorded.status));
    case "lapsed":
      return lapsed(recorded.expiresAt);
    case "unknown":
      return refuse("APPROVAL_MISMATCH", mismatchText(tool.name));
  }
}

/** The `input_required` result asking the person about this call. */
async function ask(call: Call, state: ApprovalState): Promise<ApprovalVerdict> {
  const codec = await requestStateCodec(call.approvals);
  return {
    kind: "pending",
    approvalId: state.id,
    detail: inputRequired({
      inputRequests: {
        [APPROVAL_INPUT]: inputRequired.elicit({
          message: approvalQuestion(call.tool, call.args),
          requestedSchema: approvalForm(call.tool),
        }),
      },
      requestState: await codec.mint(state, call.ctx),
    }),
  };
}

/** Why this client cannot be asked, or undefined when it can. */
function cannotAsk(
  ctx: ServerContext,
  legacyClient: () => ClientCapabilities | undefined,
): CannotAsk | undefined {
  const envelope = ctx.mcpReq.envelope;
  if (envelope !== undefined) {
    const declared = (envelope as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY] as
      | ClientCapabilities
      | undefined;
    return asksForms(declared) ? undefined : "no-elicitation";
  }
  const declared = legacyClient();
  if (declared === undefined) return "stateless-legacy";
  return asksForms(declared) ? undefined : "no-elicitation";
}

/** Whether `capabilities` include form elicitation: `elicitation: {}` does; `{url: {}}` alone does not. */
export function asksForms(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as { form?: object; url?: object } | undefined;
  if (typeof elicitation !== "object" || elicitation === null) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** The verified state when it is an approval's (other states are not ours to read). */
function approvalState(state: unknown): ApprovalState | undefined {
  const s = state as Partial<ApprovalState> | null | undefined;
  return typeof s === "object" && s !== null && s.kind === "approval" &&
      typeof s.id === "string" && typeof s.tool === "string" && typeof s.args === "string" &&
      typeof s.exp === "number"
    ? s as ApprovalState
    : undefined;
}

/** The wait of a question the session's transport withdrew unanswered, if this answer is that. */
function unansweredWait(responses: unknown): number | undefined {
  const entry = (responses as Record<string, { _meta?: Record<string, unknown> }> | undefined)
    ?.[APPROVAL_INPUT];
  const marker = entry?._meta?.[UNANSWERED_META] as { waitMs?: unknown } | undefined;
  const waitMs = marker?.waitMs;
  return typeof waitMs === "number" && Number.isFinite(waitMs) && waitMs >= 0 ? waitMs : undefined;
}

function refuse(code: string, error: string): ApprovalVerdict {
  return { kind: "refused", code, error };
}

function now(approvals: McpApprovals): number {
  return approvals.now?.() ?? Date.now();
}
