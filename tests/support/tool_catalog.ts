/**
 * The tool-search data of tests/bench/data (real MCP servers' tools, and
 * requests labelled with the tools they need), and a registry filled with
 * those tools the way a remote server's tools are registered
 * (`<server>__<tool>`, the description prefixed with `[<server>]`, marked
 * remote, the server's JSON Schema shown).
 */
import { z } from "zod";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import type { ToolAnnotations, ToolDefinition } from "../../shared/tools/tool.ts";

/** One tool as its server publishes it. */
export interface CatalogTool {
  server: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: ToolAnnotations;
}

/** One labelled request: each need is a tool, or alternatives any of which does the job. */
export interface LabelledRequest {
  id: number;
  request: string;
  needs: (string | string[])[];
}

const DATA = new URL("../bench/data/", import.meta.url);

/** The 296 tools of `mcp_tool_catalog.json`. */
export function catalogTools(): CatalogTool[] {
  return JSON.parse(Deno.readTextFileSync(new URL("mcp_tool_catalog.json", DATA)));
}

/** The labelled requests of `tool_requests.json`. */
export function labelledRequests(): LabelledRequest[] {
  return JSON.parse(Deno.readTextFileSync(new URL("tool_requests.json", DATA)));
}

/** The registered name of a catalog tool. */
export function registeredName(tool: CatalogTool): string {
  return `${tool.server}__${tool.name}`;
}

/** A catalog tool as a remote server's tool is registered; `run` answers with a stub. */
export function remoteDefinition(tool: CatalogTool): ToolDefinition {
  return {
    name: registeredName(tool),
    description: `[${tool.server}] ${tool.description || tool.name}`,
    argsSchema: z.object({}).passthrough(),
    inputJsonSchema: tool.inputSchema,
    annotations: tool.annotations,
    remote: tool.server,
    run: ({ args }) => ({ ok: true, tool: tool.name, args }),
  };
}

/** Registers `tools` in `registry` (a new one by default) as remote tools. */
export function registerCatalog(
  tools: readonly CatalogTool[],
  registry = new ToolRegistry(),
): ToolRegistry {
  for (const tool of tools) {
    registry.register(remoteDefinition(tool), { source: `remote MCP server "${tool.server}"` });
  }
  return registry;
}

/** The share of `needs` offered: a need counts when one of its alternatives is offered. */
export function recall(needs: LabelledRequest["needs"], offered: ReadonlySet<string>): number {
  const met = needs.filter((need) =>
    (Array.isArray(need) ? need : [need]).some((name) => offered.has(name))
  );
  return needs.length === 0 ? 1 : met.length / needs.length;
}
