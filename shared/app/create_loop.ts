/**
 * The loop in code, with the embedded defaults, in one call: PGlite (real
 * Postgres with pgvector, in memory unless given a folder), the hashing
 * embedder and the heuristic planner — or OpenAI's models when `env` has
 * `OPENAI_API_KEY` — the built-in tools (`finalize_summary`, the refinement
 * tools) and yours.
 *
 * @example
 * ```ts
 * const loop = createLoop({ tools: [myTool] });
 * const { data } = await loop.run({
 *   mode: "general",
 *   sessionId: "s1",
 *   messages: [{ role: "user", content: "hello" }],
 * });
 * console.log(data.summaryMessage);
 * await loop.close();
 * ```
 */
import { loadConfig } from "../config/config.ts";
import type { ConfigOptions } from "../config/config_options.ts";
import type { Env } from "../config/env_reader.ts";
import type { ToolDefinition } from "../tools/tool.ts";
import type { SupabaseClientFactory } from "../adapters/supabase/caller_client.ts";
import { type App, createApp } from "./app.ts";

/** Builds a loop (an {@link App}: `run`, `fetch`, `registry`, `close`). */
export function createLoop(
  { tools = [], dataDir = "memory://", env = {}, options, supabaseClient }: {
    /** Your tools, beside the built-in ones. */
    tools?: readonly ToolDefinition[];
    /** Gives tools `supabase` with Supabase settings: `createCallerClient` (caller_client.ts). */
    supabaseClient?: SupabaseClientFactory;
    /** Where PGlite keeps its data (default: in memory, gone when the process ends). */
    dataDir?: string;
    /** Settings as environment variables would give them (docs/configuration.md). */
    env?: Env;
    /** Settings given in code (docs/configuration.md#options-in-code). */
    options?: ConfigOptions;
  } = {},
): App {
  return createApp(
    loadConfig({ MCP_LOOP_DATA_DIR: dataDir, MCP_LOOP_LOG_LEVEL: "warn", ...env }, { options }),
    { tools, supabaseClient },
  );
}
