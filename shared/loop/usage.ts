/** Adds up a run's model calls and tokens, for `data.usage`. */
import type { Usage } from "../contracts.ts";
import type { TokenUsage, UsageMeter } from "../ports.ts";

/**
 * A {@link UsageMeter} that keeps the totals. `cachedTokens` and
 * `embeddingTokens` appear once a call reported them, so offline runs read
 * as before.
 */
export class UsageTotals implements UsageMeter {
  #usage: Usage;

  /** Starts from `initial` (a resumed run's usage so far). */
  constructor(initial: Usage = { modelCalls: 0, promptTokens: 0, completionTokens: 0 }) {
    this.#usage = { ...initial };
  }

  add(tokens?: TokenUsage): void {
    const { cachedTokens } = this.#usage;
    this.#usage = {
      ...this.#usage,
      modelCalls: this.#usage.modelCalls + 1,
      promptTokens: this.#usage.promptTokens + (tokens?.promptTokens ?? 0),
      completionTokens: this.#usage.completionTokens + (tokens?.completionTokens ?? 0),
      ...(tokens?.cachedTokens === undefined
        ? {}
        : { cachedTokens: (cachedTokens ?? 0) + tokens.cachedTokens }),
    };
  }

  addEmbedding(tokens: number): void {
    this.#usage = {
      ...this.#usage,
      embeddingTokens: (this.#usage.embeddingTokens ?? 0) + tokens,
    };
  }

  /** The totals so far. */
  get total(): Usage {
    return { ...this.#usage };
  }
}
