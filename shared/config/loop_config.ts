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
import type { EnvReader } from "./env_reader.ts";
import { isDeployed } from "./supabase_settings.ts";

/** Deadlines and the executor rules (`MCP_LOOP_DEADLINE_MS`, ...). */
export function readLoop(reader: EnvReader): LoopOptions {
  return {
    deadlineMs: reader.int("MCP_LOOP_DEADLINE_MS", {
      fallback: DEFAULT_LOOP_OPTIONS.deadlineMs,
      min: 100,
      max: 600_000,
    }),
    stepTimeoutMs: reader.int("MCP_LOOP_STEP_TIMEOUT_MS", {
      fallback: DEFAULT_LOOP_OPTIONS.stepTimeoutMs,
      min: 10,
      max: 600_000,
    }),
    unknownTool: reader.oneOf(
      "MCP_LOOP_UNKNOWN_TOOL",
      ["skip", "fail"],
      DEFAULT_LOOP_OPTIONS.unknownTool,
    ),
    invalidArgs: reader.oneOf(
      "MCP_LOOP_INVALID_ARGS",
      ["fail", "skip"],
      DEFAULT_LOOP_OPTIONS.invalidArgs,
    ),
    maxRounds: reader.int("MCP_LOOP_MAX_ROUNDS", {
      fallback: DEFAULT_LOOP_OPTIONS.maxRounds,
      min: 1,
      max: LIMITS.maxRounds,
    }),
  };
}

/** Tool search for large catalogs (`MCP_LOOP_TOOL_SEARCH_THRESHOLD`, `MCP_LOOP_TOOL_SEARCH_TOP_K`). */
export function readToolSearch(reader: EnvReader): ToolSearchOptions {
  return {
    threshold: reader.int("MCP_LOOP_TOOL_SEARCH_THRESHOLD", {
      fallback: DEFAULT_TOOL_SEARCH.threshold,
      min: 1,
      max: 100_000,
    }),
    topK: reader.int("MCP_LOOP_TOOL_SEARCH_TOP_K", {
      fallback: DEFAULT_TOOL_SEARCH.topK,
      min: 1,
      max: 200,
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
  /** `MCP_LOOP_APPROVAL_TTL`: how long a pending approval waits (default 24h). */
  approvalTtlMs: number;
  /** `MCP_LOOP_RUN_RETENTION`: how long runs and their events are kept (default 30d). */
  retentionMs: number;
  /**
   * `MCP_LOOP_BACKGROUND_CONTINUATIONS`: how often a run paused at its deadline
   * goes on by itself (default 2 deployed, where `EdgeRuntime.waitUntil` carries it; 0 locally).
   */
  backgroundContinuations: number;
}

/** The runs settings. */
export function readRuns(reader: EnvReader): RunsConfig {
  return {
    approval: reader.oneOf("MCP_LOOP_APPROVAL", APPROVAL_MODES, "destructive"),
    tainted: reader.oneOf("MCP_LOOP_APPROVAL_TAINTED", TAINT_MODES, "writes"),
    retentionMs: readDuration(reader, "MCP_LOOP_RUN_RETENTION", {
      fallback: 30 * 86_400_000,
      min: 3_600_000,
      max: 3_650 * 86_400_000,
    }),
    approvalTtlMs: readDuration(reader, "MCP_LOOP_APPROVAL_TTL", {
      fallback: 24 * 3_600_000,
      min: 1_000,
      max: 30 * 24 * 3_600_000,
    }),
    backgroundContinuations: reader.int("MCP_LOOP_BACKGROUND_CONTINUATIONS", {
      fallback: isDeployed(reader) || "EdgeRuntime" in globalThis ? 2 : 0,
      min: 0,
      max: 10,
    }),
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
