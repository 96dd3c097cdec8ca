/**
 * The offline scorer: no model, so it judges what it can count. A round
 * scores `60 × (share of its steps that succeeded) + 40 × (share of the
 * request's content words the reply mentions)`, rounded. The reply is the
 * round's summary, or the text of its successful outputs when there is none.
 * It sees words, not meaning: a reply can mention every word and still be
 * wrong, so thresholds above ~90 are out of its reach by design.
 */
import { contentWords } from "../text/words.ts";
import type { RoundScore, ScoreInput, Scorer } from "../ports.ts";

/** Weight of the steps' success share; the rest is the request's coverage. */
const SUCCESS_WEIGHT = 60;

/** Scores by step success and word coverage (see the module doc). */
export class HeuristicScorer implements Scorer {
  score({ request, results, summaryMessage }: ScoreInput): Promise<RoundScore> {
    const succeeded = results.filter((result) => result.success);
    const successShare = results.length === 0 ? 0 : succeeded.length / results.length;
    const message = request.messages.at(-1)?.content ?? "";
    const asked = [...new Set(contentWords(message))];
    const reply = summaryMessage ??
      succeeded.map((result) => textOf(result.output)).join("\n");
    const said = new Set(contentWords(withoutEcho(reply, message)));
    const missing = asked.filter((word) => !said.has(word));
    const coverage = asked.length === 0 ? 1 : (asked.length - missing.length) / asked.length;
    const score = Math.round(SUCCESS_WEIGHT * successShare + (100 - SUCCESS_WEIGHT) * coverage);
    return Promise.resolve({ score, feedback: feedback(results, missing) });
  }
}

/**
 * The reply without quotations of the request (the offline summary quotes it,
 * clipped), so repeating the question earns no coverage.
 */
function withoutEcho(reply: string, message: string): string {
  const asked = message.replace(/\s+/g, " ").trim();
  return reply.replace(/"([^"]+)"/g, (quote, inner: string) => {
    const text = inner.replace(/…$/, "").trim();
    return text.length > 0 && asked.startsWith(text) ? '""' : quote;
  });
}

function feedback(results: ScoreInput["results"], missing: readonly string[]): string {
  const failed = results.filter((result) => !result.success);
  const lines: string[] = [];
  if (results.length === 0) lines.push("No step ran: plan the tools that answer the request.");
  else if (failed.length > 0) {
    lines.push(
      `${failed.length} of ${results.length} steps failed: ${
        failed.map((r) => `${r.tool} (${(r.error ?? r.code ?? "failed").slice(0, 120)})`).join("; ")
      }. Fix their args or use other tools.`,
    );
  } else lines.push(`All ${results.length} steps succeeded.`);
  if (missing.length > 0) {
    lines.push(`The reply does not mention: ${missing.slice(0, 12).join(", ")}.`);
  } else lines.push("The reply covers every term of the request.");
  return lines.join(" ");
}

function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}
