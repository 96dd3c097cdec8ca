/**
 * `deno task bench planner`: what the offline planner (HeuristicPlanner)
 * costs per message, with the built-in tools and the example time tool: an
 * everyday message, and messages of about 31 KB (the kind a caller may send,
 * under the 32,000-character limit) made of what its grammar reads part by
 * part: thousands of places, of things after one verb, of parts after a
 * memory ask, of spaces.
 */
import shippedTools from "../../functions/mcp-loop/tools.ts";
import { HeuristicPlanner } from "../../shared/planner/heuristic_planner.ts";
import type { PlannerTool } from "../../shared/ports.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { builtInPlannerTools } from "../support/built_in_tools.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { type BenchResult, measure } from "./harness.ts";

/** Runs the planner benchmarks. */
export async function plannerBenchmarks(): Promise<BenchResult[]> {
  const shipped = new ToolRegistry();
  for (const tool of shippedTools) shipped.register(tool);
  const tools: PlannerTool[] = [...builtInPlannerTools(), ...shipped.getToolMetadataList()];
  const planner = new HeuristicPlanner();
  const messages: [string, string, number][] = [
    ["an everyday message", "What time is it in Lisbon and Oslo? Also list my loops", 500],
    ["31 KB of places", `time in ${"Oslo, Lima, ".repeat(2_600)}`, 5],
    [
      "31 KB of things after one verb",
      `show me ${"my loops and the time in Tokyo and ".repeat(900)}`,
      5,
    ],
    ["31 KB after a memory ask", `remember that ${"I like tea, ".repeat(2_600)}`, 5],
    ["31 KB of spaces", `and in Lima?${" ".repeat(31_000)}`, 5],
  ];
  const results: BenchResult[] = [];
  for (const [name, message, iterations] of messages) {
    const plan = () =>
      planner.plan({
        request: loopRequest(message),
        context: {},
        tools,
        signal: new AbortController().signal,
      });
    results.push(
      await measure(`offline plan, ${name}`, plan, {
        iterations,
        warmup: Math.min(20, iterations),
      }),
    );
  }
  return results;
}
