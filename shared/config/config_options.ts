/**
 * The settings given in code rather than the environment: what does not
 * differ between deployments of the same app (executor rules, retrieval and
 * token tuning, model call details, local server limits). Environment
 * variables carry only secrets, URLs, models and the limits an operator tunes
 * (docs/configuration.md); everything here is an option of `createApp`,
 * `createLoop` or `serveFunction`, checked at start-up like a variable.
 */
import type { PriceTable } from "../loop/prices.ts";
import type { MemoryOptions } from "../store/sql_conversation_store.ts";
import type { ToolSearchOptions } from "../loop/tool_selection.ts";

/** Typed options of the configuration (each optional; the defaults are in docs/configuration.md). */
export interface ConfigOptions {
  loop?: {
    /** Per-step timeout in ms (default 8 000; a step never outlives the deadline). */
    stepTimeoutMs?: number;
    /** Rounds per request unless the request says (default 3). */
    maxRounds?: number;
    /** An unknown tool in a plan: skip and record it (default), or fail the request. */
    unknownTool?: "skip" | "fail";
    /** Invalid args: fail the request before anything runs (default), or skip the step. */
    invalidArgs?: "fail" | "skip";
  };
  /** What a turn recalls and how matches are ranked. */
  memory?: Partial<MemoryOptions>;
  /** The JSON Schema of working memory (default: facts and preferences). */
  workingMemorySchema?: Record<string, unknown>;
  /** Tool search above a catalog size. */
  toolSearch?: Partial<ToolSearchOptions>;
  costs?: {
    /** Prices per million tokens, over the defaults (OpenAI's list prices for the models named). */
    prices?: PriceTable;
    /** Most prompt and completion tokens a run may spend (a request may lower it). */
    maxTokens?: number;
  };
  compaction?: {
    /** Summarise a session's older messages past this many tokens (default 2 000; 0: never). */
    afterTokens?: number;
    /** About how long a summary may be (default 400). */
    summaryTokens?: number;
  };
  runs?: {
    /** How long a pending approval waits, in ms (default 24 h). */
    approvalTtlMs?: number;
    /** How often a run paused at its deadline goes on by itself (default 2 on the edge, else 0). */
    backgroundContinuations?: number;
  };
  models?: {
    /** Per-call timeout (default 30 000 ms) and retries (default 2) of model calls. */
    timeoutMs?: number;
    maxRetries?: number;
    chatTemperature?: number;
    chatMaxTokens?: number;
    /** The planner's response format (default json_schema: strict structured output). */
    responseFormat?: "json_schema" | "json_object" | "none";
    reasoningEffort?: "default" | "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";
    reasoningTokens?: number;
    /** Ask the embedding model for this many dimensions (text-embedding-3 models support it). */
    embeddingDimensions?: number;
    /** Cut each embedding input to this many tokens (default 8 192 for OpenAI's models). */
    embeddingMaxTokens?: number;
    /** Token budget of the context in the planner prompt (default 2 000). */
    promptContextTokens?: number;
  };
  auth?: {
    /** The `iss` a token must carry (default: Supabase Auth's, from SUPABASE_URL). */
    jwtIssuer?: string;
    /** The `aud` a token must carry (default `authenticated`). */
    jwtAudience?: string;
  };
  oauth?: {
    /** Scopes named in the protected-resource metadata. */
    scopes?: string[];
  };
  http?: {
    /** Bytes of request bodies a caller may send per minute (default 32 MiB). */
    callerBytesPerMinute?: number;
  };
  mcp?: {
    /** Origins, besides MCP_LOOP_CORS_ORIGINS, that may call the MCP endpoint. */
    allowedOrigins?: string[];
    /** How soon a remote MCP server that failed is tried again (default 1 000 ms). */
    remoteRetryMs?: number;
    /** How long a 2025-11-25 client's session over HTTP lives unused (default 24 h). */
    sessionTtlMs?: number;
    /** How long a call waits for the client's answer to its approval question (default 120 000 ms). */
    questionWaitMs?: number;
  };
  /** Apply `supabase/migrations/` at start (default: on for PGlite and plain Postgres, off on Supabase). */
  migrate?: boolean;
}
