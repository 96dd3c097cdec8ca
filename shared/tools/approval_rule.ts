/**
 * Which tool calls wait for a person's approval. The setting (`MCP_LOOP_APPROVAL`):
 * `none`; `destructive` (the default): every call unless the tool declares
 * itself harmless; `writes`: every tool not read-only. A tool declares itself
 * with MCP's annotations, whose defaults (MCP specification, `ToolAnnotations`)
 * are `readOnlyHint: false` and `destructiveHint: true`: a tool that says
 * nothing, as most remote servers' tools do, may destroy, so under
 * `destructive` it needs approval unless it says `readOnlyHint: true` or
 * `destructiveHint: false`. `needsApproval` in code decides for its own tool
 * (`true`, `false`, or a function of the args). `finalize_summary` only writes
 * the reply and never waits.
 *
 * **Taint** (`MCP_LOOP_APPROVAL_TAINTED=writes`, the default): a write planned
 * in a round whose prompt held untrusted text — this run's tool outputs, a
 * remote server's tool descriptions, messages recalled from other sessions —
 * also waits for a person, unless every value in its args comes from the
 * user's own message. Text a tool returns can then not make the planner write
 * something lasting (a remembered "fact", a record) behind the user's back.
 */
import type { Caller } from "../ports.ts";
import { FINALIZE_TOOL } from "./finalize_summary.ts";
import type { ToolDefinition } from "./tool.ts";

/** The approval setting. */
export type ApprovalMode = "none" | "destructive" | "writes";

/** Which approval modes there are, for the setting's check. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ["none", "destructive", "writes"];

/** What the taint rule covers: writes (the default), or nothing. */
export type TaintMode = "writes" | "off";

/** Which taint modes there are, for the setting's check. */
export const TAINT_MODES: readonly TaintMode[] = ["writes", "off"];

/** Where a call was planned, for the taint rule (absent: a direct call, over MCP). */
export interface CallOrigin {
  /** The planner's prompt for this round held untrusted text. */
  tainted: boolean;
  /** The user's own message, which a write's args may come from. */
  message: string;
}

/** Decides, per call, whether a person must approve it first. */
export type ApprovalRule = (
  tool: ToolDefinition,
  args: unknown,
  caller: Caller,
  origin?: CallOrigin,
) => boolean;

/** The rule of an approval mode and a taint mode. */
export function approvalRule(mode: ApprovalMode, taint: TaintMode = "writes"): ApprovalRule {
  return (tool, args, caller, origin) => {
    if (mode === "none" || tool.name === FINALIZE_TOOL) return false;
    if (toolAsks(tool, args, caller, mode)) return true;
    return taint === "writes" && origin?.tainted === true && isWrite(tool) &&
      !argsFromMessage(args, origin.message);
  };
}

/** Nothing needs approval (a loop without a run store cannot pause). */
export const NO_APPROVALS: ApprovalRule = () => false;

/**
 * Whether the tool, by its own declaration and MCP's defaults, asks for
 * approval under `mode`: under `writes` every write does; under `destructive`
 * `needsApproval` decides when the tool sets it, else its annotations do.
 */
function toolAsks(
  tool: ToolDefinition,
  args: unknown,
  caller: Caller,
  mode: ApprovalMode,
): boolean {
  const declared = typeof tool.needsApproval === "function"
    ? tool.needsApproval(args, caller)
    : tool.needsApproval;
  if (declared === true || (mode === "writes" && isWrite(tool))) return true;
  if (declared === false || !isWrite(tool)) return false;
  return tool.annotations?.destructiveHint !== false;
}

/** A tool not declared read-only (MCP's default) may change something. */
export function isWrite(tool: Pick<ToolDefinition, "annotations">): boolean {
  return tool.annotations?.readOnlyHint !== true;
}

/**
 * Whether every value in `args` comes from `message`: each string (trimmed,
 * case and spacing aside) appears in it, each number appears in it as a
 * number. Booleans and nulls carry no text of their own; keys are the tool's.
 */
export function argsFromMessage(args: unknown, message: string): boolean {
  const text = normalise(message);
  const numbers = new Set(text.match(/-?\d+(?:\.\d+)?/g)?.map(Number) ?? []);
  const from = (value: unknown): boolean => {
    if (typeof value === "string") {
      const wanted = normalise(value);
      return wanted === "" || text.includes(wanted);
    }
    if (typeof value === "number") return numbers.has(value);
    if (Array.isArray(value)) return value.every(from);
    if (typeof value === "object" && value !== null) return Object.values(value).every(from);
    return true;
  };
  return from(args);
}

function normalise(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}
