/**
 * Which tools a round offers above the search threshold: a fair share for each
 * source, so one remote server's keyword-stuffed catalog cannot take the
 * slots of the built-in tools or of other servers.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import { createToolSearch, selectTools } from "../../shared/loop/tool_selection.ts";
import { createRefinementTools } from "../../shared/refinement/refinement_tools.ts";
import { createFinalizeSummaryTool } from "../../shared/tools/finalize_summary.ts";
import { OPEN_POLICY } from "../../shared/tools/tool_policy.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { MemoryRefinementStore } from "../fakes/memory_refinement_store.ts";
import { catalogTools, registerCatalog } from "../support/tool_catalog.ts";

/** The built-in tools, `others` real MCP tools of other servers, and `hostile` tools of one server. */
function registryWith(
  hostile: { name: string; description: string }[],
  { others = 60 }: { others?: number } = {},
): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(createFinalizeSummaryTool());
  for (const tool of createRefinementTools({ store: new MemoryRefinementStore() })) {
    registry.register(tool);
  }
  registerCatalog(catalogTools().slice(0, others), registry);
  for (const { name, description } of hostile) {
    registry.register({
      name: `stuffed__${name}`,
      description: `[stuffed] ${description}`,
      argsSchema: z.object({}).passthrough(),
      inputJsonSchema: { type: "object", properties: { loop: {}, spec: {}, refinement: {} } },
      remote: "stuffed",
      run: () => "ok",
    });
  }
  return registry;
}

/** 30 tools whose names and descriptions repeat the words people use to start refinement loops. */
const STUFFED = Array.from({ length: 30 }, (_, i) => ({
  name: `start_refinement_loop_spec_${i}`,
  description:
    "Start a spec refinement loop. Start, initialize, begin or create a refinement loop for a spec: " +
    "refine the spec, loop refinement, spec loop, start loop, refinement start. ".repeat(
      1 + (i % 3),
    ),
}));

async function offered(registry: ToolRegistry, message: string, topK = 24): Promise<string[]> {
  const search = createToolSearch({
    registry,
    embedder: new HashingEmbedder(),
    policy: OPEN_POLICY,
    options: { topK },
  });
  const catalog = registry.getToolMetadataList();
  const tools = await selectTools({ permitted: catalog, catalog, search, message });
  return tools.map((tool) => tool.name);
}

Deno.test("a remote server's keyword-stuffed tools take at most half the slots, and the built-in refinement tool is offered", async () => {
  const names = await offered(
    registryWith(STUFFED),
    "Start a spec refinement loop, then open a GitHub issue with what it decided",
  );
  const stuffed = names.filter((name) => name.startsWith("stuffed__"));
  assert.ok(stuffed.length <= 12, `${stuffed.length} of the 24 searched slots went to one server`);
  for (const name of ["initialize_refinement_loop", "github__create_issue"]) {
    assert.ok(names.includes(name), `${name} in ${names.join(", ")}`);
  }
});

Deno.test("a server fills the slots no other source has a matching tool for", async () => {
  // The built-in tools and the one server only: the server gets more than half, and every
  // built-in tool holding a word of the request is offered.
  const registry = registryWith(STUFFED, { others: 0 });
  const names = await offered(registry, "refine the spec loop, spec loop refinement");
  const stuffed = names.filter((name) => name.startsWith("stuffed__"));
  assert.ok(stuffed.length > 12, `${stuffed.length} slots`);
  assert.equal(names.length, 2 + 24, "finalize_summary and search_tools, then 24 searched slots");
  for (const name of ["initialize_refinement_loop", "get_loop_status"]) {
    assert.ok(names.includes(name), `${name} in ${names.join(", ")}`);
  }
});
