/**
 * Tool search on MetaTool: its 199 tools registered as one remote MCP
 * server's (`metatool__<tool>`, beside the app's built-in and own tools, with
 * the offline defaults), each labelled query's latest message embedded once
 * as the context stage does, and the round-1 selection (`selectTools`, as the
 * plan stage calls it) checked for the labelled tool(s). Beside it, plain
 * BM25 over the same tools' names and descriptions.
 */
import { createApp } from "../../shared/app/app.ts";
import type { Config } from "../../shared/config/config.ts";
import { createToolSearch, selectTools } from "../../shared/loop/tool_selection.ts";
import type { Embedder, PlannerTool } from "../../shared/ports.ts";
import { OPEN_POLICY } from "../../shared/tools/tool_policy.ts";
import appTools from "../../functions/mcp-loop/tools.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { registerCatalog, registeredName } from "../support/tool_catalog.ts";
import { PlainBm25 } from "./plain_bm25.ts";
import type { RetrievalData, ToolQuery } from "./retrieval_data.ts";

/** Which queries were offered their tools, per ranking and k. */
export interface ToolSearchOutcome {
  /** `<ranking>@<k>` → one entry per query: were all its tools offered. */
  hits: Map<string, boolean[]>;
  queries: ToolQuery[];
  /** Tools in the catalog (the app's and MetaTool's). */
  catalogSize: number;
  /** Embedding calls of one text (a query's), the context stage's included. */
  embedCalls: number;
}

/** The k values measured: the default (from the configuration) and 5. */
export function toolKs(config: Config): number[] {
  return [config.toolSearch.topK, 5];
}

/** Runs tool search over every query; also plain BM25 at the same k. */
export async function measureToolSearch(
  data: RetrievalData,
  { config, embedder }: { config: Config; embedder: Embedder },
): Promise<ToolSearchOutcome> {
  const app = createApp(config, {
    tools: appTools,
    openDatabase: "on-first-use",
    logger: new RecordingLogger(),
  });
  try {
    const registry = registerCatalog(data.tools, app.registry);
    const catalog = registry.getToolMetadataList();
    const counting = countingEmbedder(embedder);
    const hits = new Map<string, boolean[]>();
    const record = (key: string, offered: ReadonlySet<string>, query: ToolQuery) => {
      const list = hits.get(key) ?? [];
      list.push(query.tools.every((tool) => offered.has(tool)));
      hits.set(key, list);
    };
    const searches = toolKs(config).map((topK) => ({
      topK,
      search: createToolSearch({
        registry,
        embedder: counting,
        policy: OPEN_POLICY,
        options: { ...config.toolSearch, topK },
      }),
    }));
    const bm25 = new PlainBm25(
      data.tools.map((tool) => ({
        id: registeredName(tool),
        text: `${tool.name} ${tool.description}`,
      })),
    );
    for (const query of data.queries) {
      const [vector] = await counting.embed([query.text]);
      for (const { topK, search } of searches) {
        const offered = await selectTools({
          permitted: catalog,
          catalog,
          search,
          message: query.text,
          vector,
        });
        record(`project@${topK}`, new Set(offered.map((tool: PlannerTool) => tool.name)), query);
      }
      const ranked = bm25.rank(query.text);
      for (const { topK } of searches) {
        record(`bm25@${topK}`, new Set(ranked.slice(0, topK)), query);
      }
    }
    return { hits, queries: data.queries, catalogSize: catalog.length, embedCalls: counting.calls };
  } finally {
    await app.close();
  }
}

/** `embedder`, counting its calls of one text (the catalog is embedded in one call). */
function countingEmbedder(embedder: Embedder): Embedder & { calls: number } {
  const counting = {
    calls: 0,
    model: embedder.model,
    dimensions: embedder.dimensions,
    embed: (texts: string[], options?: Parameters<Embedder["embed"]>[1]) => {
      if (texts.length === 1) counting.calls++;
      return embedder.embed(texts, options);
    },
  };
  return counting;
}
