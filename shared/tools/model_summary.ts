/**
 * `finalize_summary` with a chat model: a reply to the user, in the request's
 * mode, written from the step results. Falls back to the offline summary when
 * the model fails, so the user still gets a reply.
 */
import { describeError } from "../errors.ts";
import type { ChatModel, Logger } from "../ports.ts";
import { compactJson } from "../planner/plan_prompt.ts";
import { offlineSummary, type SummaryInput } from "./finalize_summary.ts";

const MODE_VOICE: Record<string, string> = {
  analyst: "The user is an analyst: be precise and data-focused.",
  candidate: "The user is a job candidate: be encouraging and practical.",
  hiring: "The user is hiring: be concise and decision-oriented.",
  general: "Be helpful and concise.",
};

/** A summarize function for `createFinalizeSummaryTool`. */
export function createModelSummarizer(
  model: ChatModel,
  { logger, maxTokens = 600 }: { logger: Logger; maxTokens?: number },
): (input: SummaryInput, signal: AbortSignal) => Promise<string> {
  return async (input, signal) => {
    const results = input.results.map(({ tool, success, output, error }) =>
      success ? { tool, output } : { tool, failed: error }
    );
    try {
      const { text } = await model.complete({
        messages: [
          {
            role: "system",
            content: `You write the assistant's reply in a chat app (mode "${input.mode}"). ${
              MODE_VOICE[input.mode] ?? MODE_VOICE.general
            } Base the reply only on the tool results given; do not invent results. Mention failed steps briefly.`,
          },
          {
            role: "user",
            content: `User's message: ${JSON.stringify(input.message)}\n${
              input.instructions ? `Instructions: ${input.instructions}\n` : ""
            }Tool results:\n${compactJson(results, 8_000)}\n\nWrite the reply to the user.`,
          },
        ],
        maxTokens,
        signal,
      });
      if (text.trim()) return text.trim();
      logger.warn("the summary model returned no text; using the offline summary");
    } catch (error) {
      logger.warn("the summary model failed; using the offline summary", {
        error: describeError(error),
      });
    }
    return offlineSummary(input);
  };
}
