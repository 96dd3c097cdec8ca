/**
 * Which tools a round offers the planner, and in which order. Up to the
 * search threshold, every tool the request may use; above it, tool search:
 * the tools always offered (`finalize_summary`, `search_tools`, tools marked
 * `alwaysOffer`) and the best matches of the message (ToolIndex: BM25 and the
 * embedder, fused by reciprocal rank), no remote server taking more than half
 * of them while other sources have matches (`tools/fair_share.ts`). A run keeps the tools it was offered
 * for its later rounds — the prompt's prefix and the strict plan schema stay
 * the same bytes, so a provider's cache serves them — and adds, after them,
 * the tools a `search_tools` step found. The order is deterministic: the
 * always-offered tools by name, then the others by name.
 */
import type { ActionResult } from "../contracts.ts";
import type { Embedder, PlannerTool, UsageMeter } from "../ports.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import { fairShare } from "../tools/fair_share.ts";
import { createSearchToolsTool, foundTools, SEARCH_TOOLS } from "../tools/search_tools.ts";
import { ToolIndex } from "../tools/tool_index.ts";
import type { ToolPolicy } from "../tools/tool_policy.ts";
import { type RegisteredTool, ToolRegistry } from "../tools/tool_registry.ts";

/** Tool search settings. */
export interface ToolSearchOptions {
  /** Offer every permitted tool up to this many; search above it (default 30). */
  threshold: number;
  /** How many of the best matches a search offers besides the always-offered tools (default 24). */
  topK: number;
}

/** The defaults of {@link ToolSearchOptions}. */
export const DEFAULT_TOOL_SEARCH: Readonly<ToolSearchOptions> = Object.freeze({
  threshold: 30,
  topK: 24,
});

/** Tool search as the loop uses it. */
export interface ToolSearch {
  index: ToolIndex;
  options: ToolSearchOptions;
  /** `search_tools`, a loop-only tool (not in the registry, not served over MCP). */
  tool: RegisteredTool;
}

/** Tool search over `registry`'s tools, ranked with `embedder`'s vectors. */
export function createToolSearch(
  { registry, embedder, policy, options = {} }: {
    registry: ToolRegistry;
    embedder: Embedder;
    policy: ToolPolicy;
    options?: Partial<ToolSearchOptions>;
  },
): ToolSearch {
  const index = new ToolIndex({ embedder });
  const own = new ToolRegistry();
  own.register(
    createSearchToolsTool({
      index,
      candidates: (subject) => {
        const catalog = registry.getToolMetadataList();
        const permitted = policy.filter(catalog, subject as Parameters<ToolPolicy["filter"]>[1]);
        return { catalog, permitted: new Set(permitted.map((tool) => tool.name)) };
      },
    }),
    { source: "tool search" },
  );
  return { index, options: { ...DEFAULT_TOOL_SEARCH, ...options }, tool: own.get(SEARCH_TOOLS)! };
}

/** What a round's selection starts from. */
export interface SelectionInput {
  /** The tools this request may use (policy, `availableTools`), in registry order. */
  permitted: readonly PlannerTool[];
  /** The whole catalog, for the lexical statistics (the registry's cached list). */
  catalog: readonly PlannerTool[];
  search?: ToolSearch;
  /** The user's latest message, and its vector from the context stage when there is one. */
  message: string;
  vector?: readonly number[];
  /** The tools the run's earlier rounds were offered, in their order. */
  previous?: readonly string[];
  /** The steps so far (`search_tools` outputs add tools). */
  results?: readonly ActionResult[];
  signal?: AbortSignal;
  usage?: UsageMeter;
}

/** The tools a round offers, in prompt order (see the module doc). */
export async function selectTools(input: SelectionInput): Promise<PlannerTool[]> {
  const { search, permitted } = input;
  if (!search || permitted.length <= search.options.threshold) return ordered(permitted);
  const byName = new Map(permitted.map((tool) => [tool.name, tool]));
  byName.set(SEARCH_TOOLS, searchMetadata(search));
  let names = input.previous?.filter((name) => byName.has(name));
  if (!names?.length) {
    const always = [...byName.values()].filter(isAlwaysOffered);
    const alwaysNames = new Set(always.map((tool) => tool.name));
    const ranked = await search.index.score(input.catalog, {
      text: input.message,
      vector: input.vector,
    }, {
      candidates: new Set(permitted.map((t) => t.name).filter((n) => !alwaysNames.has(n))),
      signal: input.signal,
      usage: input.usage,
    });
    names = [
      ...always.map((tool) => tool.name).sort(),
      ...fairShare(ranked, { slots: search.options.topK }).map((tool) => tool.name).sort(),
    ];
  }
  const offered = new Set(names);
  const found = (input.results ?? [])
    .filter((result) => result.tool === SEARCH_TOOLS && result.success)
    .flatMap((result) => foundTools(result.output))
    .filter((name) => byName.has(name) && !offered.has(name));
  return [...names, ...[...new Set(found)].sort()].map((name) => byName.get(name)!);
}

/** Every tool, the always-offered ones first, each group by name. */
function ordered(tools: readonly PlannerTool[]): PlannerTool[] {
  const sorted = tools.filter((tool) => tool.name !== SEARCH_TOOLS)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [...sorted.filter(isAlwaysOffered), ...sorted.filter((tool) => !isAlwaysOffered(tool))];
}

function isAlwaysOffered(tool: PlannerTool): boolean {
  return tool.name === FINALIZE_TOOL || tool.name === SEARCH_TOOLS || tool.alwaysOffer === true;
}

const metadata = new WeakMap<ToolSearch, PlannerTool>();

/** `search_tools` as the planner sees it. */
function searchMetadata(search: ToolSearch): PlannerTool {
  let tool = metadata.get(search);
  if (!tool) {
    const { name, description, inputSchema, outputJsonSchema } = search.tool;
    tool = {
      name,
      description,
      argsSchema: inputSchema,
      ...(outputJsonSchema ? { outputSchema: outputJsonSchema } : {}),
      readOnly: true,
    };
    metadata.set(search, tool);
  }
  return tool;
}
