/**
 * The loop's own settings: deadlines and executor rules, conversation memory,
 * refinement-loop thresholds and the tool policy.
 */
import { LIMITS } from "../contracts.ts";
import { DEFAULT_LOOP_OPTIONS, type LoopOptions } from "../loop/runner.ts";
import { DEFAULT_TOOL_SEARCH, type ToolSearchOptions } from "../loop/tool_selection.ts";
import type { LoopType } from "../store/refinement_store_port.ts";
import { DEFAULT_LOOP_SETTINGS, LOOP_TYPES, type LoopSettings } from "../refinement/policy.ts";
import { ToolPolicyRules } from "../tools/tool_policy.ts";
import {
  APPROVAL_MODES,
  type ApprovalMode,
  TAINT_MODES,
  type TaintMode,
} from "../tools/approval_rule.ts";
import type { ConfigOptions } from "./config_options.ts";
import type { EnvReader } from "./env_reader.ts";

/** The deadline (`MCP_LOOP_DEADLINE_MS`) and the executor rules (options `loop.*`). */
export function readLoop(reader: EnvReader, options: ConfigOptions["loop"] = {}): LoopOptions {
  const d = DEFAULT_LOOP_OPTIONS;
  return {
    deadlineMs: reader.int("MCP_LOOP_DEADLINE_MS", {
      fallback: d.deadlineMs,
      min: 100,
      max: 600_000,
    }),
    stepTimeoutMs: reader.option("loop.stepTimeoutMs", options.stepTimeoutMs, {
      fallback: d.stepTimeoutMs,
      min: 10,
      max: 600_000,
      integer: true,
    }),
    unknownTool: options.unknownTool ?? d.unknownTool,
    invalidArgs: options.invalidArgs ?? d.invalidArgs,
    maxRounds: reader.option("loop.maxRounds", options.maxRounds, {
      fallback: d.maxRounds,
      min: 1,
      max: LIMITS.maxRounds,
      integer: true,
    }),
  };
}

/** Tool search for large catalogs (options `toolSearch.threshold`, `toolSearch.topK`). */
export function readToolSearch(
  reader: EnvReader,
  options: ConfigOptions["toolSearch"] = {},
): ToolSearchOptions {
  return {
    threshold: reader.option("toolSearch.threshold", options.threshold, {
      fallback: DEFAULT_TOOL_SEARCH.threshold,
      min: 1,
      max: 100_000,
      integer: true,
    }),
    topK: reader.option("toolSearch.topK", options.topK, {
      fallback: DEFAULT_TOOL_SEARCH.topK,
      min: 1,
      max: 200,
      integer: true,
    }),
  };
}

/** FSDD_LOOP_<TYPE>_THRESHOLD (1–100) and FSDD_LOOP_<TYPE>_MAX_ITERATIONS (1–20), as in the specification. */
export function readRefinement(reader: EnvReader): Record<LoopType, LoopSettings> {
  const entries = LOOP_TYPES.map((type) => {
    const prefix = `FSDD_LOOP_${type.toUpperCase()}`;
    const defaults = DEFAULT_LOOP_SETTINGS[type];
    return [type, {
      threshold: reader.int(`${prefix}_THRESHOLD`, {
        fallback: defaults.threshold,
        min: 1,
        max: 100,
      }),
      maxIterations: reader.int(`${prefix}_MAX_ITERATIONS`, {
        fallback: defaults.maxIterations,
        min: 1,
        max: 20,
      }),
    }] as const;
  });
  return Object.fromEntries(entries) as Record<LoopType, LoopSettings>;
}

/** MCP_LOOP_TOOL_POLICY: `{"modes":{"<mode>":["tool", "prefix*"]},"callers":{"key:<name>":[...]}}`. */
export function readToolPolicy(reader: EnvReader): ToolPolicyRules {
  const raw = reader.string("MCP_LOOP_TOOL_POLICY");
  if (!raw) return { modes: {}, callers: {} };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    reader.problem(
      'MCP_LOOP_TOOL_POLICY must be JSON like {"modes":{"candidate":["finalize_summary"]},"callers":{"anonymous":["finalize_summary"]}}',
    );
    return { modes: {}, callers: {} };
  }
  const parsed = ToolPolicyRules.safeParse(json);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues.slice(0, 5)) {
    // A bad record key carries its reason one level down.
    const message = issue.code === "invalid_key" ? issue.issues[0]?.message : issue.message;
    reader.problem(
      `MCP_LOOP_TOOL_POLICY: ${issue.path.join(".") || "(root)"}: ${message ?? issue.message}`,
    );
  }
  return { modes: {}, callers: {} };
}

/** Persisted runs: which calls wait for approval, for how long, and background continuation. */
export interface RunsConfig {
  /** `MCP_LOOP_APPROVAL`: none, destructive (default) or writes. */
  approval: ApprovalMode;
  /** `MCP_LOOP_APPROVAL_TAINTED`: writes planned from untrusted text wait for a person (default writes). */
  tainted: TaintMode;
  /** Option `runs.approvalTtlMs`: how long a pending approval waits (default 24 h). */
  approvalTtlMs: number;
  /** `MCP_LOOP_RUN_RETENTION`: how long runs and their events are kept (default 30d). */
  retentionMs: number;
  /**
   * Option `runs.backgroundContinuations`: how often a run paused at its deadline
   * goes on by itself (default 2 on the edge runtime, where `EdgeRuntime.waitUntil` carries it; 0 locally).
   */
  backgroundContinuations: number;
}

/** The runs settings. */
export function readRuns(
  reader: EnvReader,
  { options = {}, edge }: { options?: ConfigOptions["runs"]; edge: boolean },
): RunsConfig {
  return {
    approval: reader.oneOf("MCP_LOOP_APPROVAL", APPROVAL_MODES, "destructive"),
    tainted: reader.oneOf("MCP_LOOP_APPROVAL_TAINTED", TAINT_MODES, "writes"),
    approvalTtlMs: reader.option("runs.approvalTtlMs", options.approvalTtlMs, {
      fallback: 24 * 3_600_000,
      min: 1_000,
      max: 30 * 24 * 3_600_000,
    }),
    retentionMs: readDuration(reader, "MCP_LOOP_RUN_RETENTION", {
      fallback: 30 * 86_400_000,
      min: 3_600_000,
      max: 3_650 * 86_400_000,
    }),
    backgroundContinuations: reader.option(
      "runs.backgroundContinuations",
      options.backgroundContinuations,
      { fallback: edge ? 2 : 0, min: 0, max: 10, integer: true },
    ),
  };
}

/** A duration like `24h`, `30m`, `90s` or `500ms` (a bare number is seconds), in ms. */
function readDuration(
  reader: EnvReader,
  name: string,
  { fallback, min, max }: { fallback: number; min: number; max: number },
): number {
  const raw = reader.string(name);
  if (raw === undefined) return fallback;
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(raw);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  const ms = match ? Number(match[1]) * unit[(match[2] ?? "s") as keyof typeof unit] : NaN;
  if (!(ms >= min && ms <= max)) {
    reader.problem(
      `${name} must be a duration from ${min / 1000}s to ${
        max / 86_400_000
      }d, like 24h, 30m or 90s; got "${raw}"`,
    );
    return fallback;
  }
  return ms;
}
