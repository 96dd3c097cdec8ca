/** A test scorer that plays back queued scores (the last repeats) and records what it judged. */
import type { RoundScore, ScoreInput, Scorer } from "../../shared/ports.ts";

/** Plays back `scores` in order. */
export class ScriptedScorer implements Scorer {
  readonly inputs: ScoreInput[] = [];
  readonly #scores: RoundScore[];

  constructor(...scores: (number | RoundScore)[]) {
    this.#scores = scores.map((s) =>
      typeof s === "number" ? { score: s, feedback: `scripted feedback for ${s}` } : s
    );
  }

  score(input: ScoreInput): Promise<RoundScore> {
    this.inputs.push(input);
    const next = this.#scores.length > 1 ? this.#scores.shift()! : this.#scores[0];
    return Promise.resolve({ ...next });
  }
}
