/**
 * The round-1 planner prompt of every labelled request at 300 tools, with
 * tool search offering k tools and without it, counted as the fake OpenAI
 * API counts (o200k_base, the plan schema included).
 */
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import { createToolSearch, selectTools } from "../../shared/loop/tool_selection.ts";
import { ChatPlanner } from "../../shared/planner/chat_planner.ts";
import type { ChatCompletionRequest, PlannerTool } from "../../shared/ports.ts";
import { OPEN_POLICY } from "../../shared/tools/tool_policy.ts";
import { promptTokens } from "../fakes/openai_api_rules.ts";
import { labelledRequests, recall } from "../support/tool_catalog.ts";
import { mean, registryOf } from "./tokens_setup.ts";

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/** The prompt tokens of the planner's call for `message` with `tools` offered. */
async function planPrompt(message: string, tools: PlannerTool[]): Promise<number> {
  let sent: ChatCompletionRequest | undefined;
  const planner = new ChatPlanner({
    model: "gpt-4o",
    complete: (request) => {
      sent = request;
      return Promise.resolve({ text: "[]" });
    },
  });
  await planner.plan({
    request: { mode: "general", sessionId: "s", messages: [{ role: "user", content: message }] },
    context: { recentMessages: [], semanticMatches: [], sessionId: "s", mode: "general" },
    tools,
    signal: new AbortController().signal,
  });
  const spec = sent!.jsonSchema!;
  return promptTokens("o200k_base", {
    model: "gpt-4o",
    messages: sent!.messages,
    response_format: {
      type: "json_schema",
      json_schema: { name: spec.name, schema: spec.schema, strict: spec.strict === true },
    },
  }).length;
}

/** The table. */
export async function promptShares(): Promise<string> {
  const registry = registryOf(300);
  const catalog = registry.getToolMetadataList();
  const requests = labelledRequests();
  const embedder = new HashingEmbedder();
  const everything = await planPrompt(requests[0].request, catalog);
  const rows = [
    `Round-1 planner prompt of all ${requests.length} labelled requests at ${catalog.length} tools (every tool: ${
      everything.toLocaleString("en-US")
    } tokens), with tool search offering the top k (and finalize_summary, search_tools):`,
    "",
    "| k | mean prompt | largest prompt | mean share of the all-tools prompt | largest share | recall@k (hybrid, hashing) |",
    "|---:|---:|---:|---:|---:|---:|",
  ];
  for (const topK of [8, 16, 24, 32]) {
    const search = createToolSearch({ registry, embedder, policy: OPEN_POLICY, options: { topK } });
    const sizes: number[] = [];
    const recalls: number[] = [];
    for (const { request, needs } of requests) {
      const tools = await selectTools({ permitted: catalog, catalog, search, message: request });
      sizes.push(await planPrompt(request, tools));
      recalls.push(recall(needs, new Set(tools.map((tool) => tool.name))));
    }
    const largest = Math.max(...sizes);
    rows.push(
      `| ${topK}${topK === 24 ? " (default)" : ""} | ${
        Math.round(mean(sizes)).toLocaleString("en-US")
      } | ${largest.toLocaleString("en-US")} | ${pct(mean(sizes) / everything)} | ${
        pct(largest / everything)
      } | ${mean(recalls).toFixed(3)} |`,
    );
  }
  return rows.join("\n");
}
