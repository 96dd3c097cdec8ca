/**
 * A tool's arguments through its Zod schema: parsed (defaults and transforms
 * applied), or the issues that name each bad field. The loop's plan check and
 * every tool call use it.
 */
import type { ToolDefinition } from "./tool.ts";

/** One issue with a step's args, as Zod reports it. */
export interface ArgIssue {
  path: (string | number)[];
  message: string;
  code: string;
}

/** Parses args with the tool's schema (defaults and transforms applied). */
export function parseArgs(
  tool: Pick<ToolDefinition, "argsSchema">,
  args: unknown,
): { ok: true; args: unknown } | { ok: false; issues: ArgIssue[] } {
  const parsed = tool.argsSchema.safeParse(args);
  if (parsed.success) return { ok: true, args: parsed.data };
  const issues = parsed.error.issues.map(({ path, message, code }) => ({
    path: path.map((key) => typeof key === "symbol" ? String(key) : key),
    message,
    code,
  }));
  return { ok: false, issues };
}

/** Issues as one line: `loop_id: Invalid input; x: too small`. */
export function describeIssues(issues: readonly ArgIssue[]): string {
  return issues.map((i) => `${i.path.join(".") || "(args)"}: ${i.message}`).join("; ");
}
