/**
 * What a tool is: a name, a description, a Zod schema for its args and a
 * `run` function. The loop and the MCP server both read tools from the
 * {@link ToolRegistry}.
 */
import type { z } from "zod";
import type { ActionResult, MCPRequest } from "../contracts.ts";
import type { SupabaseClient } from "@supabase/supabase-js";
import type { Caller, Sql, UsageMeter } from "../ports.ts";

/** MCP's tool name rule. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** `name` when it could be a tool's, for logs: a model or client can put any text there. */
export function loggableToolName(name: string): string {
  return TOOL_NAME_PATTERN.test(name) ? name : "(not a tool name)";
}

/** MCP tool annotations (hints for clients; never trusted for security). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What `run` receives. */
export interface ToolRunParams<A> {
  /** The args, already parsed by `argsSchema` (defaults and transforms applied). */
  args: A;
  /** The loop context, with earlier steps' outputs under their tool names ({} over MCP). */
  context: Record<string, unknown>;
  /** Earlier steps of this loop run, in order (empty over MCP). */
  results: readonly ActionResult[];
  /** Aborted when the step times out or the request's deadline passes. */
  signal: AbortSignal;
  /** Who is calling; tools with state scope it by this. */
  caller: Caller;
  /** The loop request, when the call comes from the loop. */
  request?: MCPRequest;
  /** Counts model calls the tool makes, for the run's `usage` (absent over MCP). */
  usage?: UsageMeter;
  /**
   * supabase-js acting as the caller: a signed-in user's access token (so row
   * level security applies), the anon key for anyone else. Absent unless the
   * application passes `supabaseClient` (functions/mcp-loop/tools.ts) and
   * Supabase settings (`SUPABASE_URL` and the anon key) are configured.
   */
  supabase?: SupabaseClient;
  /**
   * The database port, for tools that need SQL. On a direct connection
   * (PGlite, `DATABASE_URL`) it runs as the connection's role and bypasses
   * row level security: scope queries by `caller` yourself.
   */
  sql?: Sql;
}

/** What a tool call gets besides its args: the caller-bound clients. */
export type ToolServices = (
  caller: Caller,
) => Promise<Pick<ToolRunParams<unknown>, "supabase" | "sql">>;

/** A tool as registered. `S` is its args schema, `O` its output. */
export interface ToolDefinition<S extends z.ZodType = z.ZodType, O = unknown> {
  /** Unique, matching `^[A-Za-z0-9_.-]{1,64}$`. */
  name: string;
  /** What it does and when to use it, for a model or an MCP client choosing it unaided. */
  description: string;
  /** Validates and parses the args; its JSON Schema is what planners and MCP clients see. */
  argsSchema: S;
  /** Declared output, served as MCP `outputSchema`/`structuredContent`. */
  outputSchema?: z.ZodType;
  /** JSON Schema to show instead of the one derived from `argsSchema` (remote tools). */
  inputJsonSchema?: Record<string, unknown>;
  /** JSON Schema of the output to show instead of one derived from `outputSchema` (remote tools). */
  outputJsonSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  /**
   * Ask a person before a call runs: `true`, or a function of the parsed args
   * and the caller (see `MCP_LOOP_APPROVAL` for which other tools need it).
   */
  needsApproval?: boolean | ((args: z.output<S>, caller: Caller) => boolean);
  /** The remote MCP server the tool comes from; planners treat its description as untrusted. */
  remote?: string;
  /** Offer it to the planner even when tool search picks the tools (a large catalog). */
  alwaysOffer?: boolean;
  run(params: ToolRunParams<z.output<S>>): Promise<O> | O;
  /**
   * One sentence about several of its outputs in one reply, which the reply
   * written without a model adds after theirs ("Tokyo is 8 hours ahead of
   * Paris."); undefined to add none.
   */
  together?(outputs: NoInfer<O>[]): string | undefined;
}

/** Helps TypeScript infer `args` in `run` from the schema. */
export function defineTool<S extends z.ZodType, O>(
  definition: ToolDefinition<S, O>,
): ToolDefinition<S, O> {
  return definition;
}
