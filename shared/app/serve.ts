/**
 * Serves the function with the application's tools, in the runtime it finds
 * itself in: under Supabase's Edge Runtime, the app handed to `Deno.serve`
 * (serve_edge.ts); anywhere else, `deno task start`'s local server, loaded by
 * a specifier no bundler follows (shared/local/ is never part of what is
 * deployed).
 */
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
  /** The runtime (default: detected). */
  runtime?: RuntimeInfo;
}

/** Serves the function (see the module doc). */
export async function serveFunction(serve: ServeOptions): Promise<void> {
  const runtime = serve.runtime ?? detectRuntime();
  if (runtime.kind === "edge") return serveOnEdge({ ...serve, runtime });
  const specifier: string = import.meta.resolve("../local/serve_local.ts");
  const { serveLocal } = await import(specifier) as typeof import("../local/serve_local.ts");
  await serveLocal({ ...serve, runtime });
}
