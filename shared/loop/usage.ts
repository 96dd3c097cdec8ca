/**
 * Adds up a run's model calls, tokens and cost, for `data.usage`, and keeps
 * the run within its budget: a chat call that would take the run past
 * `maxTokens` or `maxCostUsd` is refused before it is sent.
 */
import type { Usage } from "../contracts.ts";
import { AppError } from "../errors.ts";
import type { ModelCall, TokenCounter, TokenUsage, UsageMeter } from "../ports.ts";
import { costOf, DEFAULT_PRICES, priceOf, type PriceTable, roundUsd } from "./prices.ts";

/** A run's budget (either limit may be absent). */
export interface Budget {
  /** Most prompt and completion tokens of chat calls. */
  maxTokens?: number;
  /** Most US dollars of priced calls. */
  maxCostUsd?: number;
}

/** What model calls cost and how much a run may spend (a request may lower each limit). */
export interface LoopCosts {
  /** Default: OpenAI's list prices for the models the docs name. */
  prices?: PriceTable;
  /** Default: four characters a token (the app counts with a tokenizer, chat_tokens.ts). */
  counter?: TokenCounter;
  maxTokens?: number;
  maxCostUsd?: number;
}

/** A run's meter: its budget is the request's and the settings' limits, the lower of each. */
export function meterFor(
  costs: LoopCosts = {},
  request: Budget,
  initial?: Usage,
): UsageTotals {
  const lower = (a?: number, b?: number) =>
    a === undefined ? b : b === undefined ? a : Math.min(a, b);
  return new UsageTotals(initial, {
    prices: costs.prices,
    counter: costs.counter,
    budget: {
      maxTokens: lower(request.maxTokens, costs.maxTokens),
      maxCostUsd: lower(request.maxCostUsd, costs.maxCostUsd),
    },
  });
}

/** What a meter prices and limits with. */
export interface MeterOptions {
  prices?: PriceTable;
  budget?: Budget;
  /** Counts a call's prompt before it is sent (default: four characters a token, an estimate). */
  counter?: TokenCounter;
}

/** The answer a call is assumed to write at least, before the run has seen one. */
const MIN_ANSWER_TOKENS = 100;

/**
 * A {@link UsageMeter} that keeps the totals. `cachedTokens`,
 * `embeddingTokens` and `costUsd` appear once a call reported them, so
 * offline runs read as before.
 */
export class UsageTotals implements UsageMeter {
  #usage: Usage;
  readonly #prices: PriceTable;
  readonly #budget: Budget;
  readonly #counter: TokenCounter;
  #longestAnswer = 0;
  #refused = false;

  /** Starts from `initial` (a resumed run's usage so far). */
  constructor(
    initial: Usage = { modelCalls: 0, promptTokens: 0, completionTokens: 0 },
    { prices = DEFAULT_PRICES, budget = {}, counter = APPROXIMATE_COUNTER }: MeterOptions = {},
  ) {
    this.#usage = { ...initial };
    this.#prices = prices;
    this.#budget = budget;
    this.#counter = counter;
  }

  add(tokens?: TokenUsage): void {
    const { cachedTokens } = this.#usage;
    this.#longestAnswer = Math.max(this.#longestAnswer, tokens?.completionTokens ?? 0);
    this.#usage = {
      ...this.#usage,
      modelCalls: this.#usage.modelCalls + 1,
      promptTokens: this.#usage.promptTokens + (tokens?.promptTokens ?? 0),
      completionTokens: this.#usage.completionTokens + (tokens?.completionTokens ?? 0),
      ...(tokens?.cachedTokens === undefined
        ? {}
        : { cachedTokens: (cachedTokens ?? 0) + tokens.cachedTokens }),
    };
    const price = tokens?.model === undefined ? undefined : priceOf(tokens.model, this.#prices);
    if (tokens && price) this.#addCost(costOf(tokens, price));
  }

  addEmbedding(tokens: number, model?: string): void {
    this.#usage = {
      ...this.#usage,
      embeddingTokens: (this.#usage.embeddingTokens ?? 0) + tokens,
    };
    const price = model === undefined ? undefined : priceOf(model, this.#prices);
    if (price) this.#addCost(costOf({ promptTokens: tokens, completionTokens: 0 }, price));
  }

  /**
   * Refuses (BUDGET_EXCEEDED) a call whose prompt, counted before it is sent,
   * and an answer as long as the run's longest so far (at least 100 tokens)
   * would take the run past a limit. A model without a price is not limited by cost.
   */
  async admit({ model, request }: ModelCall): Promise<void> {
    const { maxTokens, maxCostUsd } = this.#budget;
    if (maxTokens === undefined && maxCostUsd === undefined) return;
    const prompt = await this.#counter.countRequest(request);
    const answer = Math.max(MIN_ANSWER_TOKENS, this.#longestAnswer);
    const used = this.#usage.promptTokens + this.#usage.completionTokens;
    if (maxTokens !== undefined && used + prompt + answer > maxTokens) {
      this.#refuse(
        `the call's ${prompt} prompt tokens and about ${answer} for its answer would take the run's ${used} tokens past maxTokens ${maxTokens}`,
      );
    }
    const price = priceOf(model, this.#prices);
    if (maxCostUsd !== undefined && price) {
      const cost = costOf({ promptTokens: prompt, completionTokens: answer }, price);
      const spent = this.#usage.costUsd ?? 0;
      if (spent + cost > maxCostUsd) {
        this.#refuse(
          `the call would cost about $${roundUsd(cost)} on top of the run's $${
            roundUsd(spent)
          }, past maxCostUsd ${maxCostUsd}`,
        );
      }
    }
  }

  budgetExceeded(): boolean {
    return this.#refused;
  }

  /** The totals so far. */
  get total(): Usage {
    return { ...this.#usage };
  }

  #addCost(usd: number): void {
    this.#usage = { ...this.#usage, costUsd: roundUsd((this.#usage.costUsd ?? 0) + usd) };
  }

  #refuse(why: string): never {
    this.#refused = true;
    throw new AppError("BUDGET_EXCEEDED", `A model call was not made: ${why}`);
  }
}

/** Is `error` a budget refusal? */
export function isBudgetStop(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "BUDGET_EXCEEDED";
}

/** Four characters a token: what a budget is checked with when no tokenizer is given. */
export const APPROXIMATE_COUNTER: TokenCounter = {
  countRequest: (request) => {
    const format = request.jsonSchema ? JSON.stringify(request.jsonSchema).length : 0;
    const text = request.messages.reduce((sum, message) => sum + message.content.length + 16, 0);
    return Promise.resolve(Math.ceil((format + text) / 4));
  },
  countText: (text) => Promise.resolve(Math.ceil(text.length / 4)),
};
