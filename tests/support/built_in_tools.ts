/**
 * Every tool the project itself registers, as the planner sees them: the
 * built-in tools in the order the app registers them (shared/app/build_registry.ts:
 * `finalize_summary`, the refinement tools, the memory tools), `search_tools`
 * (offered with tool search), and the example app's tools
 * (functions/mcp-loop/tools.ts).
 */
import appTools from "../../functions/mcp-loop/tools.ts";
import { memoryShape } from "../../shared/memory/working_memory.ts";
import type { PlannerTool } from "../../shared/ports.ts";
import { createRefinementTools } from "../../shared/refinement/refinement_tools.ts";
import { createFinalizeSummaryTool } from "../../shared/tools/finalize_summary.ts";
import { createMemoryTools } from "../../shared/tools/memory_tools.ts";
import { createSearchToolsTool } from "../../shared/tools/search_tools.ts";
import { ToolIndex } from "../../shared/tools/tool_index.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { MemoryRefinementStore } from "../fakes/memory_refinement_store.ts";

/** The project's tools as planner metadata (`shape`: the working memory's, default facts and preferences). */
export function builtInPlannerTools(
  { shape = memoryShape() }: { shape?: ReturnType<typeof memoryShape> } = {},
): PlannerTool[] {
  const registry = new ToolRegistry();
  const store = new MemoryConversationStore();
  registry.register(createFinalizeSummaryTool());
  for (const tool of createRefinementTools({ store: new MemoryRefinementStore() })) {
    registry.register(tool);
  }
  for (const tool of createMemoryTools({ memory: store, data: store, shape })) {
    registry.register(tool);
  }
  registry.register(createSearchToolsTool({
    index: new ToolIndex({ embedder: new HashingEmbedder() }),
    candidates: () => ({ catalog: [], permitted: new Set() }),
  }));
  for (const tool of appTools) registry.register(tool);
  return registry.getToolMetadataList();
}
