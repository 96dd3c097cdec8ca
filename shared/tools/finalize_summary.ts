/**
 * The built-in `finalize_summary` tool: its output becomes the response's
 * `summaryMessage` and is stored as the assistant's reply. Without a chat model
 * it writes the reply itself: a sentence per step (see `step_sentences.ts`),
 * the planner's notes, and what the user's memory and earlier messages hold
 * that bears on the message.
 */
import { z } from "zod";
import type { ActionResult } from "../contracts.ts";
import type { StoredMessage, UsageMeter } from "../ports.ts";
import { spelledOut } from "../text/chat_spelling.ts";
import { dropsTheRequest } from "../text/taking_back.ts";
import {
  asksToListMemory,
  recallAbout,
  recallMemory,
  type RecallQuestion,
  recallQuestion,
  recallStatements,
} from "./recall.ts";
import { FORGET_TOOL, REMEMBER_TOOL } from "./memory_tools.ts";
import { clipWords, stepSentence } from "./step_sentences.ts";
import { defineTool, type ToolDefinition } from "./tool.ts";

/** The tool's name; its output becomes the response's `summaryMessage`. */
export const FINALIZE_TOOL = "finalize_summary";

const FinalizeArgs = z.object({
  instructions: z.string().max(2_000).optional()
    .describe("Optional notes for the reply: what to stress, or what to tell the user"),
});

/**
 * Builds `finalize_summary`; `summarize` replaces the offline summary (e.g. a
 * chat model); `together` finds a tool's sentence about several of its outputs.
 */
export function createFinalizeSummaryTool(
  { summarize, together }: {
    summarize?: Summarize;
    together?: TogetherOf;
  } = {},
): ToolDefinition<typeof FinalizeArgs, string> {
  return defineTool({
    name: FINALIZE_TOOL,
    description:
      "Write the final reply to the user from the results of the earlier steps. Put it last in a plan; it takes no required args.",
    argsSchema: FinalizeArgs,
    annotations: { title: "Summarise the results", readOnlyHint: true, destructiveHint: false },
    run: ({ args, results, request, signal, usage, context }) => {
      // Read with chat shorthand spelled out ("what do u know about me"), quoted as written.
      const written = request?.messages.at(-1)?.content ?? "";
      const message = spelledOut(written);
      // "What do you know about me? Never mind.": nothing is recalled for what was taken back.
      const takenBack = dropsTheRequest(message);
      const question = takenBack ? undefined : recallQuestion(message);
      const listsMemory = !takenBack && asksToListMemory(message);
      const remembered = question || takenBack
        ? []
        : recallMemory(message, listsMemory ? memoryAfterSteps(results, context) : context);
      const input: SummaryInput = {
        message: written,
        mode: request?.mode ?? "general",
        results,
        instructions: args.instructions,
        // A message that only restates what memory holds adds nothing.
        recalled: question || listsMemory || takenBack
          ? []
          : recallStatements(message, context).filter((said) =>
            !remembered.some((item) => said.content.toLowerCase().includes(item.toLowerCase()))
          ),
        remembered,
        ...(together ? { together } : {}),
        ...(listsMemory ? { listsMemory } : {}),
        ...(question ? { earlier: { question, messages: recallAbout(question, context) } } : {}),
      };
      return summarize ? summarize(input, signal, usage) : Promise.resolve(offlineSummary(input));
    },
  });
}

/**
 * The context with the working memory as the steps left it: "what do you
 * remember? Forget that I'm vegan" lists what is kept after forgetting.
 */
function memoryAfterSteps(
  results: readonly ActionResult[],
  context: Record<string, unknown>,
): Record<string, unknown> {
  const last = results.findLast((result) =>
    result.success && MEMORY_WRITERS.has(result.tool) &&
    typeof result.output === "object" && result.output !== null && "memory" in result.output
  );
  return last
    ? { ...context, workingMemory: (last.output as { memory: unknown }).memory }
    : context;
}

/** The memory tools whose output holds the working memory they left. */
const MEMORY_WRITERS = new Set([REMEMBER_TOOL, FORGET_TOOL]);

/** Writes the summary (e.g. with a chat model, counting its call in `usage`). */
export type Summarize = (
  input: SummaryInput,
  signal: AbortSignal,
  usage?: UsageMeter,
) => Promise<string>;

/** A tool's `together` by its name ({@link ToolDefinition.together}). */
export type TogetherOf = (tool: string) => ((outputs: unknown[]) => string | undefined) | undefined;

/** What a summary is written from. */
export interface SummaryInput {
  /** A tool's sentence about several of its outputs (the offline reply adds it). */
  together?: TogetherOf;
  message: string;
  mode: string;
  results: readonly ActionResult[];
  instructions?: string;
  /** What the user said earlier that bears on the message (see `recall.ts`), best first. */
  recalled?: readonly StoredMessage[];
  /** What the user's working memory holds that bears on the message, best first. */
  remembered?: readonly string[];
  /**
   * The message asks what the memory holds ("what do you know about me?"):
   * `remembered` is all of it (the offline reply lists ten, then how many more).
   */
  listsMemory?: boolean;
  /** For a question about what was said earlier: the question, and the messages it finds, oldest first. */
  earlier?: { question: RecallQuestion; messages: readonly StoredMessage[] };
}

/**
 * The reply without a model: a sentence per step (earlier rounds' replies
 * left out), then the planner's notes (`instructions`), then what the user's
 * working memory holds and, when no step ran, what they said earlier that
 * bears on the message, quoted.
 */
export function offlineSummary(
  {
    message,
    results: all,
    instructions,
    recalled = [],
    remembered = [],
    listsMemory,
    earlier,
    together,
  }: SummaryInput,
): string {
  const steps = all.filter((result) => result.tool !== FINALIZE_TOOL);
  const parts = [...steps.map(stepSentence), ...togetherSentences(steps, together)];
  if (instructions?.trim()) parts.push(instructions.trim());
  if (listsMemory) parts.push(memoryListing(remembered));
  else if (remembered.length > 0) {
    parts.push(`You asked me to remember: ${remembered.map(quote).join(" and ")}.`);
  }
  if (earlier) parts.push(earlierMessages(earlier));
  // Earlier statements answer a question no step answered; beside a step's answer they are noise.
  if (recalled.length > 0 && steps.length === 0) {
    parts.push(`Earlier you said: ${recalled.map((said) => quote(said.content)).join(" and ")}.`);
  }
  if (parts.length > 0) return parts.join("\n");
  return `No tools were needed for ${quote(clipWords(oneLine(message), 80))}.`;
}

/** For each tool that succeeded more than once, its sentence about those outputs, if it has one. */
function togetherSentences(steps: readonly ActionResult[], together?: TogetherOf): string[] {
  if (!together) return [];
  const byTool = Map.groupBy(steps.filter((step) => step.success), (step) => step.tool);
  return [...byTool].flatMap(([tool, results]) => {
    const sentence = results.length > 1
      ? together(tool)?.(results.map((result) => result.output))
      : undefined;
    return sentence ? [sentence] : [];
  });
}

/** What the memory holds, a line each, or how to have something kept. */
function memoryListing(remembered: readonly string[]): string {
  if (remembered.length === 0) {
    return 'I remember nothing about you yet. Say "remember that …" and I will keep it for your later conversations.';
  }
  if (remembered.length <= 2) {
    return `You asked me to remember: ${remembered.map(quote).join(" and ")}.`;
  }
  // The last ones: facts are kept in the order they came, and the newest is what is looked for.
  const listed = remembered.slice(-MAX_LISTED).map((item) => `- ${quote(item)}`);
  const earlier = remembered.length - MAX_LISTED;
  if (earlier <= 0) return ["You asked me to remember:", ...listed].join("\n");
  const head = `You asked me to remember (the last ${MAX_LISTED} of ${remembered.length}):`;
  return [head, `- and ${earlier} earlier: ask about one by its words to see it`, ...listed]
    .join("\n");
}

/** Most items of the memory a reply lists. */
const MAX_LISTED = 10;

/** The messages a question about the conversation asked for, a line each. */
function earlierMessages({ question, messages }: NonNullable<SummaryInput["earlier"]>): string {
  const about = question.topic ? ` about ${question.topic}` : "";
  const who = question.roles.length > 1 ? "we" : question.roles[0] === "assistant" ? "I" : "you";
  if (messages.length === 0) return `I found nothing ${who} wrote earlier${about}.`;
  const speaker = (role: string) =>
    question.roles.length > 1 ? (role === "assistant" ? "I: " : "you: ") : "";
  return [
    `Earlier ${who} wrote${about}:`,
    ...messages.map((said) => `- ${speaker(said.role)}${quote(said.content)}`),
  ].join("\n");
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
const quote = (text: string) => `"${clipWords(oneLine(text), 300)}"`;
