/**
 * Which tools a request may use: per request `mode` (the loop) and per caller
 * (an API key by name, or a role), after the role boundaries of the agent
 * coordination document (seed 002). A rule is a list of tool names, where `*`
 * matches any run of characters (`docs__*`, `*`). No rule means every tool.
 * The loop applies both the mode's and the caller's rule, so a client cannot
 * widen its caller's tools by picking another mode; MCP has no mode and
 * applies the caller's rule. Clients choose their mode, so caller rules are
 * the security boundary and mode rules shape what each mode offers.
 */
import { z } from "zod";
import { Mode } from "../contracts.ts";
import type { Caller } from "../ports.ts";

/** The rules as configured (`MCP_LOOP_TOOL_POLICY`). */
export const ToolPolicyRules = z.object({
  /** Per request mode. */
  modes: z.partialRecord(Mode, z.array(z.string())).default({}),
  /**
   * Per caller: `key:<name>` (an API key), `user:<uuid>`, or a role —
   * `authenticated` (any signed-in user), `service_role`, `anonymous`.
   */
  callers: z.record(
    z.string().regex(/^(key:.+|user:.+|authenticated|service_role|anonymous)$/, {
      error:
        'a caller is "key:<name>", "user:<uuid>", "authenticated", "service_role" or "anonymous"',
    }),
    z.array(z.string()),
  ).default({}),
}).strict();
/** Parsed policy rules. */
export type ToolPolicyRules = z.infer<typeof ToolPolicyRules>;

/** Where a permission question comes from: a caller, and for the loop a mode. */
export interface PolicySubject {
  caller: Caller;
  mode?: Mode;
}

/** Answers "may this subject use this tool?" from the configured rules. */
export class ToolPolicy {
  readonly #modes: Map<string, RegExp>;
  readonly #callers: Map<string, RegExp>;

  constructor(rules: z.input<typeof ToolPolicyRules> = {}) {
    const parsed = ToolPolicyRules.parse(rules);
    this.#modes = compileAll(parsed.modes as Record<string, string[]>);
    this.#callers = compileAll(parsed.callers);
  }

  /** True when no rule restricts anything (the default). */
  get open(): boolean {
    return this.#modes.size === 0 && this.#callers.size === 0;
  }

  /** Whether `subject` may use the tool named `tool`. */
  permits(tool: string, subject: PolicySubject): boolean {
    return this.#refusedBy(tool, subject) === undefined;
  }

  /**
   * Why `subject` may not use `tool`, for the trace and for MCP clients;
   * undefined when it may.
   */
  refusal(tool: string, subject: PolicySubject): string | undefined {
    const by = this.#refusedBy(tool, subject);
    return by === undefined
      ? undefined
      : `Tool "${tool}" is not permitted ${by}; the tool policy (MCP_LOOP_TOOL_POLICY) decides which tools each mode and caller may use`;
  }

  /** The caller rule that decides for `caller` (its owner's, else its role's), if any. */
  callerRule(caller: Caller): string | undefined {
    return callerRuleName(caller, this.#callers);
  }

  /** The entries of `tools` that `subject` may use. */
  filter<T extends { name: string }>(tools: readonly T[], subject: PolicySubject): T[] {
    if (this.open) return [...tools];
    return tools.filter((tool) => this.permits(tool.name, subject));
  }

  /** The rule that refuses `tool` to `subject` (the mode's first), or undefined. */
  #refusedBy(tool: string, subject: PolicySubject): string | undefined {
    const modeRule = subject.mode === undefined ? undefined : this.#modes.get(subject.mode);
    if (modeRule && !modeRule.test(tool)) return `in mode "${subject.mode}"`;
    const name = callerRuleName(subject.caller, this.#callers);
    const callerRule = name === undefined ? undefined : this.#callers.get(name);
    return callerRule && !callerRule.test(tool) ? `for caller "${name}"` : undefined;
  }
}

/** A policy that permits everything. */
export const OPEN_POLICY: ToolPolicy = new ToolPolicy();

/** The most specific caller rule that exists: the owner (`key:ci`, `user:<id>`), then the role. */
function callerRuleName(caller: Caller, rules: ReadonlyMap<string, RegExp>): string | undefined {
  if (rules.has(caller.owner)) return caller.owner;
  const role = caller.userId ? "authenticated" : caller.owner;
  return rules.has(role) ? role : undefined;
}

function compileAll(rules: Record<string, string[] | undefined>): Map<string, RegExp> {
  const compiled = new Map<string, RegExp>();
  for (const [name, patterns] of Object.entries(rules)) {
    if (patterns) compiled.set(name, compile(patterns));
  }
  return compiled;
}

/** One anchored expression for a list of name patterns (`*` is the only wildcard). */
function compile(patterns: readonly string[]): RegExp {
  if (patterns.length === 0) return /^(?!)/; // an empty list permits nothing
  const alternatives = patterns.map((pattern) =>
    pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, "\\$&")).join(".*")
  );
  return new RegExp(`^(?:${alternatives.join("|")})$`);
}
