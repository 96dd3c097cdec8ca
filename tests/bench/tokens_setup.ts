/**
 * What the tokens benchmark runs on: registries of 10, 100 and 300 tools (the
 * built-in ones and real MCP servers' tools), the loop with the chat planner
 * on the real OpenAI adapter against the strict fake OpenAI API (real o200k
 * token counts, OpenAI's prompt-cache accounting), and prompt counting.
 */
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import { OpenAiChatModel } from "../../shared/adapters/openai/openai_chat_model.ts";
import { createOpenAiClient } from "../../shared/adapters/openai/openai_client.ts";
import { McpLoopRunner } from "../../shared/loop/runner.ts";
import { createToolSearch } from "../../shared/loop/tool_selection.ts";
import { ChatPlanner } from "../../shared/planner/chat_planner.ts";
import type {
  ChatCompletion,
  ChatCompletionRequest,
  ChatModel,
  Embedder,
  TokenUsage,
} from "../../shared/ports.ts";
import { createRefinementTools } from "../../shared/refinement/refinement_tools.ts";
import { createFinalizeSummaryTool } from "../../shared/tools/finalize_summary.ts";
import { OPEN_POLICY } from "../../shared/tools/tool_policy.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";
import { promptTokens } from "../fakes/openai_api_rules.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { MemoryRefinementStore } from "../fakes/memory_refinement_store.ts";
import {
  type CatalogTool,
  catalogTools,
  type LabelledRequest,
  labelledRequests,
  registerCatalog,
  registeredName,
} from "../support/tool_catalog.ts";

/** The requests whose rounds are run through the fake API (their needs are in every catalog size). */
export const ROUND_REQUESTS = [70, 92, 77, 2];

/** A registry of `size` tools: the 5 built-in ones and real servers' tools, the requests' needs first. */
export function registryOf(size: number): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(createFinalizeSummaryTool());
  for (const tool of createRefinementTools({ store: new MemoryRefinementStore() })) {
    registry.register(tool);
  }
  const catalog = catalogTools();
  const needed = new Set(
    labelledRequests().filter((r) => ROUND_REQUESTS.includes(r.id))
      .flatMap((r) => r.needs.map((need) => Array.isArray(need) ? need[0] : need)),
  );
  const first = catalog.filter((tool) => needed.has(registeredName(tool)));
  const rest = interleave(catalog.filter((tool) => !needed.has(registeredName(tool))));
  return registerCatalog([...first, ...rest].slice(0, size - registry.list().length), registry);
}

/** The servers' tools taken in turn, so that a smaller catalog still mixes servers. */
function interleave(tools: CatalogTool[]): CatalogTool[] {
  const byServer = Map.groupBy(tools, (tool) => tool.server);
  const out: CatalogTool[] = [];
  for (let i = 0; out.length < tools.length; i++) {
    for (const list of byServer.values()) if (list[i]) out.push(list[i]);
  }
  return out;
}

/** One model call as the fake API counted it: its prompt's tokens and the usage it reported. */
export interface CountedCall {
  tokens: number[];
  usage: TokenUsage;
}

/** The real OpenAI chat adapter, keeping each call's prompt tokens and usage. */
class CountingModel implements ChatModel {
  readonly model = "gpt-4o";
  readonly calls: CountedCall[] = [];
  readonly #inner: OpenAiChatModel;
  readonly #server: FakeOpenAiServer;

  constructor(server: FakeOpenAiServer) {
    this.#server = server;
    this.#inner = new OpenAiChatModel(
      createOpenAiClient({ apiKey: "sk-bench-0123456789abcdef", baseUrl: server.baseUrl }),
      { model: "gpt-4o" },
    );
  }

  async complete(request: ChatCompletionRequest): Promise<ChatCompletion> {
    const answer = await this.#inner.complete(request);
    const body = this.#server.chatRequests.at(-1)!.body;
    this.calls.push({ tokens: promptTokens("o200k_base", body), usage: answer.usage! });
    return answer;
  }
}

/**
 * Runs `requests` through the loop on a fresh fake API, two rounds each (the
 * first need, then `finalize_summary`); returns each planner call.
 */
export async function runRounds(
  { size, search, requests, embedder = new HashingEmbedder() }: {
    size: number;
    search: boolean;
    requests: LabelledRequest[];
    embedder?: Embedder;
  },
): Promise<CountedCall[][]> {
  const server = FakeOpenAiServer.start();
  try {
    const model = new CountingModel(server);
    const registry = registryOf(size);
    const runner = new McpLoopRunner({
      registry,
      planner: new ChatPlanner(model),
      embedder,
      store: new MemoryConversationStore(),
      toolSearch: search
        ? createToolSearch({ registry, embedder, policy: OPEN_POLICY })
        : undefined,
      options: { deadlineMs: 60_000 },
    });
    const perRequest: CountedCall[][] = [];
    for (const request of requests) {
      const need = request.needs[0];
      const tool = Array.isArray(need) ? need[0] : need;
      server.chatReplies.push(
        JSON.stringify({ plan: [{ tool, args: {} }] }),
        JSON.stringify({ plan: [{ tool: "finalize_summary", args: {} }] }),
      );
      const before = model.calls.length;
      await runner.run({
        mode: "general",
        sessionId: `bench-${crypto.randomUUID()}`,
        messages: [{ role: "user", content: request.request }],
        maxRounds: 2,
      });
      perRequest.push(model.calls.slice(before));
    }
    return perRequest;
  } finally {
    await server.close();
  }
}

/** The number of leading tokens two prompts share. */
export function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** The mean of `values`. */
export function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / (values.length || 1);
}
