/** Builds a loop with mock tools, a scripted planner and the in-memory store. */
import { z } from "zod";
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import type { MCPRequest } from "../../shared/contracts.ts";
import type { RefinementDeps } from "../../shared/loop/refinement_stage.ts";
import { type LoopOptions, McpLoopRunner, type RunKeeper } from "../../shared/loop/runner.ts";
import type { ConversationStore, Embedder, Planner } from "../../shared/ports.ts";
import { createFinalizeSummaryTool } from "../../shared/tools/finalize_summary.ts";
import { defineTool, type ToolDefinition } from "../../shared/tools/tool.ts";
import { OPEN_POLICY, type ToolPolicy } from "../../shared/tools/tool_policy.ts";
import { createToolSearch, type ToolSearchOptions } from "../../shared/loop/tool_selection.ts";
import type { CompactionDeps } from "../../shared/loop/compaction.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";

/** The seed's mock tools, recording each call in `calls`. */
export function mockTools(calls: string[]): ToolDefinition[] {
  return [
    defineTool({
      name: "mock_tool_a",
      description: "Mock A",
      argsSchema: z.object({ foo: z.string() }),
      run: ({ args }) => {
        calls.push(`a:${args.foo}`);
        return `ran A with ${args.foo}`;
      },
    }),
    defineTool({
      name: "mock_tool_b",
      description: "Mock B",
      argsSchema: z.object({ x: z.number() }),
      run: ({ args, context }) => {
        calls.push(`b:${args.x}`);
        return { doubled: args.x * 2, sawA: context.mock_tool_a ?? null };
      },
    }),
  ];
}

/** A loop request with one user message. */
export function loopRequest(content = "hello", extra: Partial<MCPRequest> = {}): MCPRequest {
  return {
    mode: "general",
    sessionId: `session-${crypto.randomUUID()}`,
    messages: [{ role: "user", content }],
    ...extra,
  };
}

/** A runner over mock tools (plus `finalize_summary`), with everything observable. */
export function buildLoop(
  {
    planner,
    tools = [],
    options = {},
    store = new MemoryConversationStore(),
    embedder = new HashingEmbedder(),
    policy,
    refinement,
    runs,
    toolSearch,
    compaction,
  }: {
    planner: Planner;
    tools?: ToolDefinition[];
    options?: Partial<LoopOptions>;
    store?: ConversationStore;
    embedder?: Embedder;
    policy?: ToolPolicy;
    refinement?: RefinementDeps;
    runs?: RunKeeper;
    /** Tool search with these options (none: every permitted tool is offered). */
    toolSearch?: Partial<ToolSearchOptions>;
    /** Summaries of long sessions. */
    compaction?: CompactionDeps;
  },
) {
  const registry = new ToolRegistry();
  registry.register(createFinalizeSummaryTool());
  for (const tool of tools) registry.register(tool);
  const logger = new RecordingLogger();
  const runner = new McpLoopRunner({
    registry,
    planner,
    embedder,
    store,
    logger,
    options,
    policy,
    refinement,
    runs,
    compaction,
    toolSearch: toolSearch &&
      createToolSearch({ registry, embedder, policy: policy ?? OPEN_POLICY, options: toolSearch }),
  });
  return { runner, registry, logger, store };
}
