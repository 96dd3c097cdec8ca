/**
 * Writes a session's summary for compaction (see compaction.ts): with the
 * chat model when there is one, else — and whenever the model fails or the
 * run's budget refuses the call — an extractive summary: the sentences that
 * carry the conversation's recurring words, names and numbers, each said
 * once (a repeat or an echo is left out), in order, each with who said it.
 */
import { contentWords } from "../text/words.ts";
import { describeError } from "../errors.ts";
import type { ChatCompletionRequest, ChatModel, Logger, UsageMeter } from "../ports.ts";
import { createFence, UNTRUSTED_DATA_RULE } from "../planner/untrusted_data.ts";
import type { HistoryMessage } from "../store/session_summary_store.ts";

/** What a summary is written from. */
export interface SessionSummaryInput {
  /** The summary so far (of still older messages), when there is one. */
  previous?: string;
  /** The messages to fold in, oldest first. */
  messages: readonly Pick<HistoryMessage, "role" | "content">[];
  /** About how long the summary may be. */
  maxTokens: number;
}

/** Writes a summary (a model call is counted in `usage` and admitted by its budget). */
export type SessionSummarizer = (
  input: SessionSummaryInput,
  options: { signal?: AbortSignal; usage?: UsageMeter },
) => Promise<string>;

/** Four characters a token, to size an extractive summary. */
const CHARS_PER_TOKEN = 4;

/** The offline summary (see the module doc); deterministic. */
export function extractiveSummary({ previous, messages, maxTokens }: SessionSummaryInput): string {
  const units = [
    ...(previous ?? "").split("\n").map((line) => line.replace(/^- /, "").trim()).filter(Boolean)
      .map((text) => ({ text, earlier: true })),
    ...messages.flatMap(({ role, content }) =>
      sentences(content).map((sentence) => ({ text: `${role}: ${sentence}`, earlier: false }))
    ),
  ].map((unit, order) => ({
    ...unit,
    order,
    // What was said, not who said it.
    words: new Set(contentWords(unit.text.replace(/^(user|assistant|system|tool): /, ""))),
  }));
  const df = new Map<string, number>();
  for (const unit of units) for (const word of unit.words) df.set(word, (df.get(word) ?? 0) + 1);
  const score = (unit: (typeof units)[number]) => {
    const recurring = [...unit.words].filter((word) => (df.get(word) ?? 0) > 1).length;
    const facts = (unit.text.match(/\b(\d[\d.,:/-]*|[A-Z][a-z]+[A-Z]?\w*)\b/g) ?? []).length;
    return recurring + 2 * facts + (unit.earlier ? 3 : 0) + (/^user:/.test(unit.text) ? 1 : 0);
  };
  const budget = maxTokens * CHARS_PER_TOKEN;
  const chosen: typeof units = [];
  let used = 0;
  for (const unit of [...units].sort((a, b) => score(b) - score(a) || a.order - b.order)) {
    const line = clip(unit.text, 240);
    if (used + line.length + 3 > budget) continue;
    // Said already (a repeated request, a reply echoing it): once is enough.
    if (chosen.some((other) => overlap(other.words, unit.words) >= 0.9)) continue;
    chosen.push({ ...unit, text: line });
    used += line.length + 3;
  }
  return chosen.sort((a, b) => a.order - b.order).map((unit) => `- ${unit.text}`).join("\n");
}

/** A summarizer on a chat model, falling back to the extractive summary. */
export function modelSessionSummarizer(
  model: ChatModel,
  { logger }: { logger: Logger },
): SessionSummarizer {
  return async (input, { signal, usage }) => {
    const fence = createFence();
    const transcript = input.messages.map(({ role, content }) => `${role}: ${content}`).join("\n");
    const request: ChatCompletionRequest = {
      messages: [
        {
          role: "system",
          content:
            `You summarise the older part of a conversation so that an assistant can carry on with it. Keep what the user asked for and decided, facts, names, numbers, preferences and open questions; drop small talk. Write short bullet lines, at most about ${
              Math.round(input.maxTokens * 0.75)
            } words. ${UNTRUSTED_DATA_RULE}`,
        },
        {
          role: "user",
          content: `${fence.declaration}\n${
            input.previous ? `The summary so far:\n${fence.block("summary", input.previous)}\n` : ""
          }Messages to fold into it, oldest first:\n${
            fence.block("messages", transcript)
          }\n\nWrite the updated summary.`,
        },
      ],
      maxTokens: input.maxTokens,
      temperature: 0,
      signal,
    };
    try {
      await usage?.admit?.({ model: model.model, request });
      const { text, usage: tokens } = await model.complete(request);
      usage?.add(tokens);
      if (text.trim()) return text.trim();
      logger.warn("the summary model returned no text; summarising the session offline");
    } catch (error) {
      if (signal?.aborted) throw error;
      logger.warn("the summary model failed; summarising the session offline", {
        error: describeError(error),
      });
    }
    return extractiveSummary(input);
  };
}

/** The share of the words of the smaller set that the other has too. */
function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return 1;
  let shared = 0;
  for (const word of small) if (large.has(word)) shared++;
  return shared / small.size;
}

/** A text's sentences (lines and sentence ends), without empty ones. */
function sentences(text: string): string[] {
  return text.split(/\n+|(?<=[.!?])\s+/).map((s) => s.replace(/\s+/g, " ").trim()).filter(Boolean);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
