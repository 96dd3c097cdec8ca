/**
 * What model calls cost: a price table in US dollars per million tokens
 * (input, cached input, output), with defaults for the OpenAI models the docs
 * name (OpenAI's standard-tier list prices, 2025) and overridable by
 * the option `costs.prices`. A dated model name (`gpt-4o-2024-08-06`) or a gateway
 * prefix (`openai/gpt-4o`) takes its base model's price.
 */
import type { TokenUsage } from "../ports.ts";

/** One model's prices, US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  /** Prompt tokens served from the provider's cache (default: the input price). */
  cachedInput?: number;
  /** Completion tokens, reasoning included (none for embedding models). */
  output?: number;
}

/** Prices by model name. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** OpenAI's list prices for the models the docs name. */
export const DEFAULT_PRICES: PriceTable = Object.freeze({
  "gpt-4o": { input: 2.5, cachedInput: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6 },
  "gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, cachedInput: 0.025, output: 0.4 },
  "o1": { input: 15, cachedInput: 7.5, output: 60 },
  "o3": { input: 2, cachedInput: 0.5, output: 8 },
  "o3-mini": { input: 1.1, cachedInput: 0.55, output: 4.4 },
  "o4-mini": { input: 1.1, cachedInput: 0.275, output: 4.4 },
  "gpt-5": { input: 1.25, cachedInput: 0.125, output: 10 },
  "gpt-5-mini": { input: 0.25, cachedInput: 0.025, output: 2 },
  "gpt-5-nano": { input: 0.05, cachedInput: 0.005, output: 0.4 },
  "gpt-5-chat-latest": { input: 1.25, cachedInput: 0.125, output: 10 },
  "gpt-5.1": { input: 1.25, cachedInput: 0.125, output: 10 },
  "text-embedding-3-small": { input: 0.02 },
  "text-embedding-3-large": { input: 0.13 },
  "text-embedding-ada-002": { input: 0.1 },
});

/** The price of `model`: its own entry, else its base model's (a date suffix or prefix dropped). */
export function priceOf(
  model: string,
  prices: PriceTable = DEFAULT_PRICES,
): ModelPrice | undefined {
  const name = model.slice(model.lastIndexOf("/") + 1);
  if (Object.hasOwn(prices, name)) return prices[name];
  // The longest priced name that `name` extends with a date or a version: gpt-4o-mini-2024-07-18.
  const base = Object.keys(prices)
    .filter((key) =>
      name.startsWith(`${key}-`) && /^-\d{4}(-\d\d){2}$|^-\d{4}$/.test(name.slice(key.length))
    )
    .sort((a, b) => b.length - a.length)[0];
  return base === undefined ? undefined : prices[base];
}

/** US dollars of one call's tokens at `price` (cached prompt tokens at the cached price). */
export function costOf(tokens: TokenUsage, price: ModelPrice): number {
  const cached = Math.min(tokens.cachedTokens ?? 0, tokens.promptTokens);
  const usd = (tokens.promptTokens - cached) * price.input +
    cached * (price.cachedInput ?? price.input) +
    tokens.completionTokens * (price.output ?? 0);
  return usd / 1_000_000;
}

/** Dollars as reported: rounded to a millionth of a cent, no float noise. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e8) / 1e8;
}
