/**
 * `deno task bench`: runs the benchmark suites and prints markdown tables.
 * Pass suite names to run only those (e.g. `deno task bench loop`).
 */
import { authBenchmarks } from "./auth_bench.ts";
import { bundleBenchmarks } from "./bundle_bench.ts";
import { edgeBenchmarks } from "./edge_bench.ts";
import { floodBenchmark } from "./flood_bench.ts";
import { runsBenchmarks } from "./runs_bench.ts";
import { runEventsBenchmark } from "./run_events_bench.ts";
import { formatTable } from "./harness.ts";
import { loopBenchmarks } from "./loop_bench.ts";
import { mcpLoadBenchmark } from "./mcp_bench.ts";
import { planSchemaBenchmarks } from "./plan_schema_bench.ts";
import { refinementBenchmarks } from "./refinement_bench.ts";
import { roundsBenchmarks } from "./rounds_bench.ts";
import { startBenchmarks } from "./start_bench.ts";
import { storeBenchmarks } from "./store_bench.ts";
import { tokensBenchmarks } from "./tokens_bench.ts";

const suites: Record<string, () => Promise<import("./harness.ts").BenchResult[] | string>> = {
  loop: loopBenchmarks,
  rounds: roundsBenchmarks,
  start: startBenchmarks,
  refinement: refinementBenchmarks,
  mcp: () => mcpLoadBenchmark(),
  flood: floodBenchmark,
  store: storeBenchmarks,
  auth: authBenchmarks,
  edge: edgeBenchmarks,
  runs: runsBenchmarks,
  events: runEventsBenchmark,
  bundle: bundleBenchmarks,
  tokens: tokensBenchmarks,
  plan_schema: planSchemaBenchmarks,
};

const wanted = Deno.args.length > 0 ? Deno.args : Object.keys(suites);
for (const name of wanted) {
  const suite = suites[name];
  if (!suite) {
    console.error(`unknown suite "${name}"; known: ${Object.keys(suites).join(", ")}`);
    Deno.exit(2);
  }
  console.log(`\n### ${name}\n`);
  const result = await suite();
  console.log(typeof result === "string" ? result : formatTable(result));
}
