/**
 * The scorer on a chat model: a reviewer prompt with the user's request, the
 * round's steps and reply (as untrusted data), answered as JSON
 * `{score, feedback}` (structured output named `score`). When the model fails
 * or answers something else, the round is scored offline instead, and the
 * feedback says so.
 */
import { describeError } from "../errors.ts";
import type { ChatModel, Logger, RoundScore, ScoreInput, Scorer } from "../ports.ts";
import { compactJson } from "../planner/compact_json.ts";
import { extractJson } from "../planner/plan_parser.ts";
import { createFence, UNTRUSTED_DATA_RULE } from "../planner/untrusted_data.ts";
import { HeuristicScorer } from "./heuristic_scorer.ts";

/** The JSON Schema of the reviewer's answer. */
export const SCORE_SCHEMA = {
  type: "object",
  properties: {
    score: { type: "integer", minimum: 0, maximum: 100 },
    feedback: { type: "string" },
  },
  required: ["score", "feedback"],
  additionalProperties: false,
};

const SYSTEM =
  `You review the work of an assistant that answers a user's request with tools. Score how well the result answers the request, from 0 (not at all) to 100 (completely and correctly), honestly: do not reward effort, only the result. Give feedback that says what is missing or wrong and what would raise the score, in at most five sentences. Reply with JSON only: {"score": <integer 0-100>, "feedback": "<text>"}. ${UNTRUSTED_DATA_RULE}`;

/** Scores rounds with a chat model. */
export class ChatScorer implements Scorer {
  readonly #model: ChatModel;
  readonly #logger: Logger;
  readonly #fallback: Scorer;

  constructor(
    model: ChatModel,
    { logger, fallback = new HeuristicScorer() }: { logger: Logger; fallback?: Scorer },
  ) {
    this.#model = model;
    this.#logger = logger;
    this.#fallback = fallback;
  }

  async score(input: ScoreInput): Promise<RoundScore> {
    let problem: string;
    try {
      const request = {
        messages: [
          { role: "system" as const, content: SYSTEM },
          { role: "user" as const, content: reviewPrompt(input) },
        ],
        // Strict-mode compatible, so a provider that enforces it answers exactly this shape.
        jsonSchema: { name: "score", schema: SCORE_SCHEMA, strict: true },
        temperature: 0,
        maxTokens: 400,
        signal: input.signal,
      };
      // Past the run's budget the round is scored offline (and the run then stops).
      await input.usage?.admit?.({ model: this.#model.model, request });
      const { text, usage } = await this.#model.complete(request);
      input.usage?.add(usage);
      const parsed = parseScore(text);
      if (typeof parsed !== "string") return parsed;
      problem = parsed;
    } catch (error) {
      if (input.signal.aborted) throw error;
      problem = `the model failed: ${describeError(error)}`;
    }
    this.#logger.warn("the scoring model gave no usable score; scoring offline", { problem });
    const offline = await this.#fallback.score(input);
    return { ...offline, feedback: `${offline.feedback} (Scored offline: ${problem}.)` };
  }
}

/** The score in a reviewer's reply, or what is wrong with the reply. */
export function parseScore(text: string): RoundScore | string {
  const json = extractJson(text) as { score?: unknown; feedback?: unknown } | undefined;
  if (typeof json !== "object" || json === null) return "the reply holds no JSON object";
  const { score, feedback } = json;
  if (typeof score !== "number" || !Number.isInteger(score) || score < 0 || score > 100) {
    return `the reply's score ${JSON.stringify(score)} is not an integer from 0 to 100`;
  }
  return { score, feedback: typeof feedback === "string" ? feedback.slice(0, 2_000) : "" };
}

function reviewPrompt({ request, round, results, summaryMessage, threshold }: ScoreInput): string {
  const fence = createFence();
  const steps = results.length === 0
    ? "(no steps ran)"
    : results.map((result, i) =>
      `Step ${i + 1}, ${result.tool}, ${result.success ? "succeeded" : "failed"}:\n${
        fence.block(
          `tool:${result.tool}`,
          result.success ? compactJson(result.output ?? null, 1_500) : result.error ?? "",
        )
      }`
    ).join("\n");
  return `${fence.declaration}\nThe user's request (mode "${request.mode}"):\n${
    JSON.stringify(request.messages.at(-1)?.content ?? "")
  }\n\nRound ${round}. The result must score at least ${threshold} to be accepted.\n\nSteps of this round:\n${steps}\n\nThe reply to the user:\n${
    summaryMessage === undefined ? "(none written)" : fence.block("reply", summaryMessage)
  }\n\nScore the result.`;
}
