/**
 * The tool registry of the app: the built-in tools (`finalize_summary`, the
 * refinement tools, the memory tools), then the application's own, and the
 * remote MCP servers' tools as they connect.
 */
import type { Config } from "../config/config.ts";
import type { Logger } from "../ports.ts";
import type { RemoteToolSource } from "../mcp/remote_tool_source.ts";
import { createRefinementTools } from "../refinement/refinement_tools.ts";
import type { RefinementStore } from "../store/refinement_store_port.ts";
import { createFinalizeSummaryTool } from "../tools/finalize_summary.ts";
import { createMemoryTools } from "../tools/memory_tools.ts";
import { createModelSummarizer } from "../tools/model_summary.ts";
import type { ToolDefinition } from "../tools/tool.ts";
import { ToolRegistry } from "../tools/tool_registry.ts";
import type { MemoryStores } from "./memory_stores.ts";
import type { Models } from "./models.ts";

/** The built-in tools, then the extra ones (remote tools join later). */
export function buildRegistry(
  config: Config,
  models: Models,
  overrides: { tools?: readonly ToolDefinition[]; toolsSource?: string },
  { refinementStore, logger, memoryStores }: {
    refinementStore: RefinementStore;
    logger: Logger;
    memoryStores: MemoryStores;
  },
): ToolRegistry {
  const registry = new ToolRegistry();
  const summarize = models.chatModel
    ? createModelSummarizer(models.chatModel, { logger })
    : undefined;
  const builtIn = { source: "the built-in tools" };
  // A tool's sentence about several of its outputs (get_current_time: the hours between places).
  const together = (name: string) => {
    const tool = registry.get(name);
    return tool?.together ? (outputs: unknown[]) => tool.together!(outputs) : undefined;
  };
  registry.register(createFinalizeSummaryTool({ summarize, together }), builtIn);
  for (
    const tool of createRefinementTools({ store: refinementStore, settings: config.refinement })
  ) {
    registry.register(tool, builtIn);
  }
  for (const tool of createMemoryTools(memoryStores)) registry.register(tool, builtIn);
  const source = overrides.toolsSource ?? "functions/mcp-loop/tools.ts";
  for (const tool of overrides.tools ?? []) registry.register(tool, { source });
  return registry;
}

/** Starts connecting the configured remote MCP servers (the MCP SDK is loaded only when there are some). */
export async function connectRemoteServers(
  config: Config,
  registry: ToolRegistry,
  logger: Logger,
): Promise<RemoteToolSource[]> {
  if (config.mcp.remoteServers.length === 0) return [];
  const { RemoteToolSource } = await import("../mcp/remote_tool_source.ts");
  return config.mcp.remoteServers.map((server) => {
    const source = new RemoteToolSource({
      config: server,
      registry,
      logger,
      // The callers' own deadlines abort calls earlier; this only bounds a call nobody aborts.
      callTimeoutMs: config.loop.deadlineMs,
      retry: {
        initialMs: config.mcp.remoteRetryMs,
        maxMs: Math.max(60_000, config.mcp.remoteRetryMs),
      },
    });
    void source.connect();
    return source;
  });
}
