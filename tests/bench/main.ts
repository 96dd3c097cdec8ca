/**
 * `deno task bench`: runs the benchmark suites and prints markdown tables.
 * Pass suite names to run only those (e.g. `deno task bench loop`).
 * `retrieval` needs public data and runs only when named, with
 * `--data DIR` (and optionally `--only tools|memory`).
 */
import { authBenchmarks } from "./auth_bench.ts";
import { bootBenchmarks } from "./boot_bench.ts";
import { bundleBenchmarks } from "./bundle_bench.ts";
import { bundleCheck } from "./bundle_check.ts";
import { edgeBenchmarks } from "./edge_bench.ts";
import { floodBenchmark } from "./flood_bench.ts";
import { runsBenchmarks } from "./runs_bench.ts";
import { runEventsBenchmark } from "./run_events_bench.ts";
import { formatTable } from "./harness.ts";
import { loopBenchmarks } from "./loop_bench.ts";
import { mcpLoadBenchmark } from "./mcp_bench.ts";
import { planSchemaBenchmarks } from "./plan_schema_bench.ts";
import { plannerBenchmarks } from "./planner_bench.ts";
import { refinementBenchmarks } from "./refinement_bench.ts";
import { retrievalBenchmarks, type RetrievalBenchOptions } from "./retrieval_bench.ts";
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
  bundle_check: bundleCheck,
  boot: () => bootBenchmarks(),
  tokens: () => tokensBenchmarks(options),
  plan_schema: planSchemaBenchmarks,
  planner: plannerBenchmarks,
  retrieval: () => retrievalBenchmarks(options),
};

const { names, options } = parseArgs(Deno.args);
const wanted = names.length > 0
  ? names
  : Object.keys(suites).filter((name) => name !== "retrieval");
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

/** Suite names, and the retrieval benchmark's `--data DIR`, `--only tools|memory` and `--embedder word-vectors|sentence` (tokens: `sentence`). */
function parseArgs(args: string[]): { names: string[]; options: RetrievalBenchOptions } {
  const names: string[] = [];
  const options: RetrievalBenchOptions = {};
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split(/=(.*)/s, 2);
    const value = () => inline ?? args[++i];
    if (flag === "--data") options.data = value();
    else if (flag === "--only") options.only = value() as RetrievalBenchOptions["only"];
    else if (flag === "--embedder") options.embedder = value() as RetrievalBenchOptions["embedder"];
    else names.push(args[i]);
  }
  return { names, options };
}
