/**
 * `search_tools`: the planner's way to ask for tools it was not offered. Tool
 * search offers a large catalog's best matches only; this tool ranks the
 * rest against the planner's description of what it needs (and, in a later
 * round, the results so far), and the tools it finds are offered from the
 * next round on (see `loop/tool_selection.ts`). It belongs to the loop, not
 * to the registry: MCP clients list every tool and have no use for it.
 */
import { z } from "zod";
import type { Caller, PlannerTool } from "../ports.ts";
import { defineTool, type ToolDefinition } from "./tool.ts";
import { fairShare } from "./fair_share.ts";
import type { ToolIndex } from "./tool_index.ts";

/** The tool's name. */
export const SEARCH_TOOLS = "search_tools";

/** Most tools one search returns. */
export const SEARCH_LIMIT = 20;

const SearchArgs = z.object({
  query: z.string().min(1).max(500).describe(
    "What the tool you need does, in a few words (e.g. 'post a message to a chat channel')",
  ),
  limit: z.int().min(1).max(SEARCH_LIMIT).optional().describe("Most tools to find (default 8)"),
});

const SearchOutput = z.object({
  tools: z.array(z.object({ name: z.string(), description: z.string() })),
});

/** What the tool found: offered to the planner from the next round on. */
export type SearchOutput = z.infer<typeof SearchOutput>;

/** The tools a search may find: the catalog, and which of them the caller may use in this mode. */
export type SearchCandidates = (
  subject: { caller: Caller; mode?: string },
) => { catalog: readonly PlannerTool[]; permitted: ReadonlySet<string> };

/** Builds `search_tools` over `index`. */
export function createSearchToolsTool(
  { index, candidates }: { index: ToolIndex; candidates: SearchCandidates },
): ToolDefinition<typeof SearchArgs, SearchOutput> {
  return defineTool({
    name: SEARCH_TOOLS,
    description:
      "Find more tools: describe the tool you need; the tools that match are listed in the next round.",
    argsSchema: SearchArgs,
    outputSchema: SearchOutput,
    annotations: { title: "Search the tools", readOnlyHint: true, destructiveHint: false },
    run: async ({ args, caller, request, results, signal, usage }) => {
      const { catalog, permitted } = candidates({ mode: request?.mode, caller });
      // What earlier steps returned narrows the search a little: it is part of the query.
      const earlier = results.filter((r) => r.success && r.tool !== SEARCH_TOOLS)
        .map((r) =>
          `${r.tool} ${typeof r.output === "string" ? r.output : JSON.stringify(r.output)}`
        )
        .join(" ").slice(0, 1_000);
      const ranked = await index.score(
        catalog,
        { text: `${args.query} ${args.query} ${earlier}` },
        {
          candidates: new Set([...permitted].filter((name) => name !== SEARCH_TOOLS)),
          signal,
          usage,
        },
      );
      return {
        tools: fairShare(ranked, { slots: args.limit ?? 8 }).map((tool) => ({
          name: tool.name,
          description: firstLine(tool.description),
        })),
      };
    },
  });
}

/** The names a `search_tools` output lists (nothing for any other value). */
export function foundTools(output: unknown): string[] {
  const parsed = SearchOutput.safeParse(output);
  return parsed.success ? parsed.data.tools.map((tool) => tool.name) : [];
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
