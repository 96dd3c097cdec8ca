/**
 * Under Supabase's Edge Runtime, which owns the socket and the process (its
 * `Deno.exit` does nothing): builds the app and hands it to `Deno.serve`. A
 * configuration it cannot start with is logged once and every request is
 * answered with that error (500 CONFIG_INVALID naming the problems), so the
 * function's callers and its log both say what to fix.
 */
import { loadConfig } from "../config/config.ts";
import { describeError } from "../errors.ts";
import { errorBody, jsonResponse } from "../http/responses.ts";
import { createConsoleLogger } from "../log/console_logger.ts";
import { consoleSink } from "../log/line_writer.ts";
import { type Logger, SILENT_LOGGER } from "../ports.ts";
import type { RuntimeInfo } from "./runtime.ts";
import type { ToolDefinition } from "../tools/tool.ts";
import type { ConfigOptions } from "../config/config_options.ts";
import type { SupabaseClientFactory } from "../adapters/supabase/caller_client.ts";

/** Builds the app for the edge runtime and serves it. */
export async function serveOnEdge(
  { tools, options, runtime, supabaseClient }: {
    tools: readonly ToolDefinition[];
    options?: ConfigOptions;
    supabaseClient?: SupabaseClientFactory;
    runtime: RuntimeInfo;
  },
): Promise<void> {
  let handler: (req: Request) => Promise<Response>;
  try {
    const config = loadConfig(Deno.env.toObject(), { runtime: "edge", options });
    const { createApp } = await import("./app.ts");
    handler = createApp(config, { tools, runtime, supabaseClient }).fetch;
  } catch (error) {
    handler = startupFailureHandler(error);
  }
  Deno.serve(handler);
}

/**
 * The handler of a function that could not start: logs `error` once and
 * answers every request with it (our errors' messages carry no secrets; any
 * other error becomes a generic 500).
 */
export function startupFailureHandler(
  error: unknown,
  { log = createConsoleLogger({ level: "error", write: consoleSink }) }: { log?: Logger } = {},
): (req: Request) => Promise<Response> {
  const { status, body, error: appError } = errorBody(error, { logger: SILENT_LOGGER });
  log.error("the function cannot start", {
    code: appError.code,
    error: appError.message,
    ...(appError === error ? {} : { cause: describeError(error) }),
  });
  return () => Promise.resolve(jsonResponse(body, status, { "cache-control": "no-store" }));
}
