/**
 * The built-in `finalize_summary` tool: its output becomes the response's
 * `summaryMessage` and is stored as the assistant's reply. Without a chat model
 * it writes a short, readable account of what each step returned.
 */
import { z } from "zod";
import type { ActionResult } from "../contracts.ts";
import type { StoredMessage, UsageMeter } from "../ports.ts";
import { recallMemory, recallStatements } from "./recall.ts";
import { defineTool, type ToolDefinition } from "./tool.ts";

/** The tool's name; its output becomes the response's `summaryMessage`. */
export const FINALIZE_TOOL = "finalize_summary";

const FinalizeArgs = z.object({
  instructions: z.string().max(2_000).optional()
    .describe("Optional hints on what the summary should stress"),
});

/** Builds `finalize_summary`; `summarize` replaces the offline summary (e.g. a chat model). */
export function createFinalizeSummaryTool(
  { summarize }: {
    summarize?: Summarize;
  } = {},
): ToolDefinition<typeof FinalizeArgs, string> {
  return defineTool({
    name: FINALIZE_TOOL,
    description:
      "Write the final reply to the user from the results of the earlier steps. Put it last in a plan; it takes no required args.",
    argsSchema: FinalizeArgs,
    annotations: { title: "Summarise the results", readOnlyHint: true, destructiveHint: false },
    run: ({ args, results, request, signal, usage, context }) => {
      const message = request?.messages.at(-1)?.content ?? "";
      const remembered = recallMemory(message, context);
      const input: SummaryInput = {
        message,
        mode: request?.mode ?? "general",
        results,
        instructions: args.instructions,
        // A message that only restates what memory holds adds nothing.
        recalled: recallStatements(message, context).filter((said) =>
          !remembered.some((item) => said.content.toLowerCase().includes(item.toLowerCase()))
        ),
        remembered,
      };
      return summarize ? summarize(input, signal, usage) : Promise.resolve(offlineSummary(input));
    },
  });
}

/** Writes the summary (e.g. with a chat model, counting its call in `usage`). */
export type Summarize = (
  input: SummaryInput,
  signal: AbortSignal,
  usage?: UsageMeter,
) => Promise<string>;

/** What a summary is written from. */
export interface SummaryInput {
  message: string;
  mode: string;
  results: readonly ActionResult[];
  instructions?: string;
  /** What the user said earlier that bears on the message (see `recall.ts`), best first. */
  recalled?: readonly StoredMessage[];
  /** What the user's working memory holds that bears on the message, best first. */
  remembered?: readonly string[];
}

/**
 * The summary without a model: one line per step (earlier rounds' summaries
 * left out), and what the user's working memory holds and what they said
 * earlier that bears on the message, quoted.
 */
export function offlineSummary(
  { message, results: all, recalled = [], remembered = [] }: SummaryInput,
): string {
  const results = all.filter((result) => result.tool !== FINALIZE_TOOL);
  const asked = `"${clip(message.replace(/\s+/g, " ").trim(), 80)}"`;
  const quote = (text: string) => `"${clip(text.replace(/\s+/g, " ").trim(), 200)}"`;
  const said = recalled.map((message) => quote(message.content));
  const kept = remembered.length > 0
    ? [`You asked me to remember: ${remembered.map(quote).join(" and ")}.`]
    : [];
  if (results.length === 0) {
    if (said.length > 0) kept.push(`Earlier in this conversation you said: ${said.join(" and ")}`);
    return kept.length > 0 ? kept.join("\n") : `No tools were needed for ${asked}.`;
  }
  const lines = results.map((result) =>
    result.success
      ? `- ${result.tool}: ${describeValue(result.output)}`
      : `- ${result.tool} failed: ${clip(result.error ?? "unknown error", 160)}`
  );
  const failed = results.filter((result) => !result.success).length;
  const head = `Ran ${results.length} tool${results.length === 1 ? "" : "s"} for ${asked}` +
    (failed > 0 ? ` (${failed} failed):` : ":");
  const tail = said.length > 0 ? [`Earlier you said: ${said.join(" and ")}`] : [];
  return [head, ...lines, ...kept, ...tail].join("\n");
}

/** A compact, readable rendering of a tool's output. */
export function describeValue(value: unknown, depth = 0): string {
  if (value === null || value === undefined) return depth === 0 ? "no output" : "none";
  if (typeof value === "string") return depth === 0 ? clip(value, 200) : `"${clip(value, 60)}"`;
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) {
    if (depth > 0) return `${value.length} item${value.length === 1 ? "" : "s"}`;
    const shown = value.slice(0, 3).map((item) => describeValue(item, depth + 1));
    return `${value.length} item${value.length === 1 ? "" : "s"}` +
      (shown.length > 0 ? ` (${shown.join("; ")}${value.length > 3 ? "; …" : ""})` : "");
  }
  if (depth > 1) return "{…}";
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  const shown = entries.slice(0, 6).map(([key, v]) => `${key} ${describeValue(v, depth + 1)}`);
  return shown.join(", ") + (entries.length > 6 ? ", …" : "") || "empty";
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
