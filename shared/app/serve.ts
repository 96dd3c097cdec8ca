/**
 * Serves the function with the application's tools, in the runtime it finds
 * itself in: under Supabase's Edge Runtime, the app handed to `Deno.serve`
 * (serve_edge.ts); anywhere else, `deno task start`'s local server, loaded by
 * a specifier no bundler follows (shared/local/ is never part of what is
 * deployed).
 */
import type { SupabaseClientFactory } from "../adapters/supabase/caller_client.ts";
import type { ConfigOptions } from "../config/config_options.ts";
import type { ToolDefinition } from "../tools/tool.ts";
import { detectRuntime, type RuntimeInfo } from "./runtime.ts";
import { serveOnEdge } from "./serve_edge.ts";

/** What the entry serves, and how. */
export interface ServeOptions {
  /** The application's tools (`functions/mcp-loop/tools.ts`). */
  tools: readonly ToolDefinition[];
  /** The settings given in code (docs/configuration.md#options). */
  options?: ConfigOptions;
  /** Gives tools `supabase` (see `supabaseClient` in functions/mcp-loop/tools.ts). */
  supabaseClient?: SupabaseClientFactory;
  /** The runtime (default: detected). */
  runtime?: RuntimeInfo;
}

/**
 * What functions/mcp-loop/tools.ts exports: its tools, and `supabaseClient`
 * when the application gives tools supabase-js (a file without it still serves).
 */
export interface ToolsFile {
  default: readonly ToolDefinition[];
  supabaseClient?: SupabaseClientFactory;
}

/**
 * What is used of the local server's module (shared/local/serve_local.ts). Its
 * specifier is held in a variable and its type written out here: Supabase's
 * bundler follows literal imports and the CLI's upload walk reads type imports
 * too, so neither takes the local folder into what is deployed.
 */
interface LocalServerModule {
  serveLocal(serve: ServeOptions & { runtime: RuntimeInfo }): Promise<void>;
}

/** Serves the function (see the module doc). */
export async function serveFunction(serve: ServeOptions): Promise<void> {
  const runtime = serve.runtime ?? detectRuntime();
  if (runtime.kind === "edge") return serveOnEdge({ ...serve, runtime });
  const specifier: string = import.meta.resolve("../local/serve_local.ts");
  const { serveLocal } = await import(specifier) as LocalServerModule;
  await serveLocal({ ...serve, runtime });
}
