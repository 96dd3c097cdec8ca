/**
 * Tokens: what model calls cost and how much a run may spend
 * (`MCP_LOOP_MAX_TOKENS`, `MCP_LOOP_MAX_COST_USD`, the price table
 * `MCP_LOOP_PRICES`), and when a long session is compacted
 * (`MCP_LOOP_COMPACT_AFTER_TOKENS`, `MCP_LOOP_SUMMARY_TOKENS`).
 */
import { z } from "zod";
import { DEFAULT_PRICES, type PriceTable } from "../loop/prices.ts";
import type { EnvReader } from "./env_reader.ts";

/** Prices and budgets. */
export interface CostConfig {
  /** The defaults with `MCP_LOOP_PRICES` over them. */
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
export function readCosts(reader: EnvReader): CostConfig {
  const maxTokens = reader.string("MCP_LOOP_MAX_TOKENS") === undefined
    ? undefined
    : reader.int("MCP_LOOP_MAX_TOKENS", { fallback: 0, min: 100, max: 1_000_000_000 });
  const maxCostUsd = reader.string("MCP_LOOP_MAX_COST_USD") === undefined
    ? undefined
    : reader.number("MCP_LOOP_MAX_COST_USD", { fallback: 0, min: 0.000001, max: 100_000 });
  return { prices: { ...DEFAULT_PRICES, ...readPrices(reader) }, maxTokens, maxCostUsd };
}

/** When a session's older messages are summarised (the recent window comes from the memory settings). */
export interface CompactionConfig {
  /** 0: never. */
  afterTokens: number;
  summaryTokens: number;
}

/** The compaction settings. */
export function readCompaction(reader: EnvReader): CompactionConfig {
  return {
    afterTokens: reader.int("MCP_LOOP_COMPACT_AFTER_TOKENS", {
      fallback: 2_000,
      min: 0,
      max: 1_000_000,
    }),
    summaryTokens: reader.int("MCP_LOOP_SUMMARY_TOKENS", { fallback: 400, min: 50, max: 8_000 }),
  };
}

/** MCP_LOOP_PRICES: `{"<model>": {"input": 2.5, "cachedInput": 1.25, "output": 10}}`, dollars per million tokens. */
function readPrices(reader: EnvReader): PriceTable {
  const raw = reader.string("MCP_LOOP_PRICES");
  if (raw === undefined) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    json = undefined;
  }
  const parsed = z.record(z.string().min(1), Price).safeParse(json);
  if (parsed.success) return parsed.data;
  reader.problem(
    'MCP_LOOP_PRICES must be JSON like {"my-model":{"input":0.5,"cachedInput":0.05,"output":1.5}} (US dollars per million tokens)',
  );
  return {};
}
