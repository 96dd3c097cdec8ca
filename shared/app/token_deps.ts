/**
 * What keeps a run's tokens down, chosen from the configuration: tool search
 * over the registry, prices and budgets (prompts counted before sending), and
 * compaction of long sessions (beside the configured conversation store: SQL,
 * or Supabase's API; the chat model summarises when there is one).
 */
import { PROMPT_COUNTER } from "../adapters/openai/chat_tokens.ts";
import type { Config } from "../config/config.ts";
import type { CompactionDeps } from "../loop/compaction.ts";
import type { LoopDeps } from "../loop/runner.ts";
import { extractiveSummary, modelSessionSummarizer } from "../loop/session_summarizer.ts";
import { createToolSearch } from "../loop/tool_selection.ts";
import type { Embedder, Logger, Sql } from "../ports.ts";
import { SqlSessionSummaryStore } from "../store/sql_session_summary_store.ts";
import type { SessionSummaryStore } from "../store/session_summary_store.ts";
import type { ToolPolicy } from "../tools/tool_policy.ts";
import type { ToolRegistry } from "../tools/tool_registry.ts";
import type { Models } from "./models.ts";
import { onFirstUse } from "./on_first_use.ts";

/** Tool search, costs and compaction for the runner. */
export function tokenDeps(
  config: Config,
  { registry, embedder, policy, sql, models, logger, overrides }: {
    registry: ToolRegistry;
    embedder: Embedder;
    policy: ToolPolicy;
    sql: Sql;
    models: Models;
    logger: Logger;
    /** A conversation store given in place of the configured one has no compaction. */
    overrides: { store?: unknown };
  },
): Pick<LoopDeps, "toolSearch" | "costs" | "compaction"> {
  return {
    toolSearch: createToolSearch({ registry, embedder, policy, options: config.toolSearch }),
    costs: { ...config.costs, counter: PROMPT_COUNTER },
    compaction: overrides.store ? undefined : compactionFor(config, { sql, models, logger }),
  };
}

function compactionFor(
  config: Config,
  { sql, models, logger }: { sql: Sql; models: Models; logger: Logger },
): CompactionDeps | undefined {
  if (config.compaction.afterTokens <= 0) return undefined;
  return {
    store: summaryStore(config, sql),
    summarize: models.chatModel
      ? modelSessionSummarizer(models.chatModel, { logger })
      : (input) => Promise.resolve(extractiveSummary(input)),
    options: { ...config.compaction, keepRecent: config.memory.recentLimit },
  };
}

/** Where summaries are kept: beside the conversations (Supabase's API loaded on first use). */
function summaryStore(config: Config, sql: Sql): SessionSummaryStore {
  const storeConfig = config.store;
  if (storeConfig.kind === "sql") return new SqlSessionSummaryStore(sql);
  return onFirstUse(
    () =>
      import("../adapters/supabase/supabase_session_summaries.ts").then(
        ({ SupabaseSessionSummaryStore }) => new SupabaseSessionSummaryStore(storeConfig),
      ),
    ["load", "loadState", "history", "save"],
  );
}
