/**
 * `deno task bench plan_schema`: what building the strict plan schema costs
 * per plan request (shared/planner/strict_plan_schema.ts): every tool the
 * project registers, the 24 tools tool search offers by default (plus
 * finalize_summary and search_tools: 26 real MCP servers' tools here), and all
 * 296 of the catalog; each with the args rewrites cached (the registry's
 * schemas seen before: every request after the first) and uncached (new
 * schema objects each time: a registry that just changed).
 */
import { strictPlan } from "../../shared/planner/strict_plan_schema.ts";
import type { PlannerTool } from "../../shared/ports.ts";
import { builtInPlannerTools } from "../support/built_in_tools.ts";
import { catalogTools, registerCatalog } from "../support/tool_catalog.ts";
import { type BenchResult, measure } from "./harness.ts";

/** Runs the plan-schema benchmarks. */
export async function planSchemaBenchmarks(): Promise<BenchResult[]> {
  const catalog = registerCatalog(catalogTools()).getToolMetadataList();
  const sets: [string, PlannerTool[], number][] = [
    ["built-in tools (10)", builtInPlannerTools(), 2_000],
    ["26 catalog tools", catalog.slice(0, 26), 2_000],
    ["296 catalog tools", catalog, 200],
  ];
  const results: BenchResult[] = [];
  for (const [name, tools, iterations] of sets) {
    results.push(
      await measure(`strict plan schema, ${name}, cached`, () => strictPlan(tools), {
        iterations,
        warmup: 50,
      }),
    );
    // Fresh schema objects each time: nothing is found in the cache.
    const fresh = () => tools.map((tool) => ({ ...tool, argsSchema: { ...tool.argsSchema } }));
    results.push(
      await measure(`strict plan schema, ${name}, uncached`, () => strictPlan(fresh()), {
        iterations: Math.ceil(iterations / 10),
        warmup: 10,
      }),
    );
  }
  return results;
}
