/**
 * A tool's arguments through its Zod schema: parsed (defaults and transforms
 * applied), or the issues that name each bad field. The loop's plan check and
 * every tool call use it.
 */
import { z } from "zod";
import type { ToolDefinition } from "./tool.ts";

/** One issue with a step's args, as Zod reports it. */
export interface ArgIssue {
  path: (string | number)[];
  message: string;
  code: string;
}

/**
 * Parses args with the tool's schema (defaults and transforms applied). A key
 * the schema does not name is an issue too, for a plain `z.object` (which
 * would drop it): a misspelt arg ("place" for "time_zone") must not leave the
 * tool running without it. A `z.looseObject` (remote tools) takes any key.
 */
export function parseArgs(
  tool: Pick<ToolDefinition, "argsSchema">,
  args: unknown,
): { ok: true; args: unknown } | { ok: false; issues: ArgIssue[] } {
  const parsed = tool.argsSchema.safeParse(args);
  const issues: ArgIssue[] = parsed.success
    ? []
    : parsed.error.issues.map(({ path, message, code }) => ({
      path: path.map((key) => typeof key === "symbol" ? String(key) : key),
      message,
      code,
    }));
  issues.push(...unknownKeys(tool.argsSchema, args));
  return issues.length === 0 && parsed.success
    ? { ok: true, args: parsed.data }
    : { ok: false, issues };
}

/** A plain `z.object` (neither loose nor with a catch-all): a key it does not name is refused. */
export function takesNoOtherKeys(schema: z.ZodType): schema is z.ZodObject {
  return schema instanceof z.ZodObject && schema.def.catchall === undefined;
}

/** The keys of `args` a plain object schema does not name, each as an issue naming the known ones. */
function unknownKeys(schema: z.ZodType, args: unknown): ArgIssue[] {
  if (!takesNoOtherKeys(schema)) return [];
  if (typeof args !== "object" || args === null || Array.isArray(args)) return [];
  const known = Object.keys(schema.shape);
  return Object.keys(args).filter((key) => !known.includes(key)).map((key) => ({
    path: [key],
    message: `Unrecognized key; ${
      known.length > 0 ? `the args are ${known.join(", ")}` : "the tool takes no args"
    }`,
    code: "unrecognized_keys",
  }));
}

/** Issues as one line: `loop_id: Invalid input; x: too small`. */
export function describeIssues(issues: readonly ArgIssue[]): string {
  return issues.map((i) => `${i.path.join(".") || "(args)"}: ${i.message}`).join("; ");
}
