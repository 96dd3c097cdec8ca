/**
 * Tokens: what model calls cost and how much a run may spend
 * (`MCP_LOOP_MAX_COST_USD`; options `costs.maxTokens` and the price table
 * `costs.prices`), and when a long session is compacted (options
 * `compaction.afterTokens`, `compaction.summaryTokens`).
 */
import { z } from "zod";
import { DEFAULT_PRICES, type PriceTable } from "../loop/prices.ts";
import type { ConfigOptions } from "./config_options.ts";
import type { EnvReader } from "./env_reader.ts";

/** Prices and budgets. */
export interface CostConfig {
  /** The defaults with the option `costs.prices` over them. */
  prices: PriceTable;
  maxTokens?: number;
  maxCostUsd?: number;
}

const Price = z.object({
  input: z.number().min(0),
  cachedInput: z.number().min(0).optional(),
  output: z.number().min(0).optional(),
}).strict();

/** The cost settings. */
export function readCosts(reader: EnvReader, options: ConfigOptions["costs"] = {}): CostConfig {
  const maxTokens = options.maxTokens === undefined
    ? undefined
    : reader.option("costs.maxTokens", options.maxTokens, {
      fallback: 0,
      min: 100,
      max: 1_000_000_000,
      integer: true,
    });
  const maxCostUsd = reader.string("MCP_LOOP_MAX_COST_USD") === undefined
    ? undefined
    : reader.number("MCP_LOOP_MAX_COST_USD", { fallback: 0, min: 0.000001, max: 100_000 });
  return {
    prices: { ...DEFAULT_PRICES, ...readPrices(reader, options.prices) },
    maxTokens,
    maxCostUsd,
  };
}

/** When a session's older messages are summarised (the recent window comes from the memory settings). */
export interface CompactionConfig {
  /** 0: never. */
  afterTokens: number;
  summaryTokens: number;
}

/** The compaction settings. */
export function readCompaction(
  reader: EnvReader,
  options: ConfigOptions["compaction"] = {},
): CompactionConfig {
  return {
    afterTokens: reader.option("compaction.afterTokens", options.afterTokens, {
      fallback: 2_000,
      min: 0,
      max: 1_000_000,
      integer: true,
    }),
    summaryTokens: reader.option("compaction.summaryTokens", options.summaryTokens, {
      fallback: 400,
      min: 50,
      max: 8_000,
      integer: true,
    }),
  };
}

/** Option `costs.prices`: `{"<model>": {"input": 2.5, "cachedInput": 1.25, "output": 10}}`, dollars per million tokens. */
function readPrices(reader: EnvReader, prices: PriceTable | undefined): PriceTable {
  if (prices === undefined) return {};
  const parsed = z.record(z.string().min(1), Price).safeParse(prices);
  if (parsed.success) return parsed.data;
  reader.problem(
    'option costs.prices must be like {"my-model":{"input":0.5,"cachedInput":0.05,"output":1.5}} (US dollars per million tokens)',
  );
  return {};
}
