import assert from "node:assert/strict";
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import type { Embedder, PlannerTool } from "../../shared/ports.ts";
import { stemEnglish } from "../../shared/text/english_stemmer.ts";
import { queryTerms } from "../../shared/tools/query_terms.ts";
import { ToolIndex, toolText } from "../../shared/tools/tool_index.ts";
import {
  catalogTools,
  labelledRequests,
  recall,
  registerCatalog,
} from "../support/tool_catalog.ts";

/** The hashing embedder, counting the texts it embeds. */
class CountingEmbedder implements Embedder {
  readonly model = "hashing-v1";
  readonly dimensions = 1536;
  readonly texts: string[] = [];
  fail = false;
  readonly #inner = new HashingEmbedder();

  embed(texts: string[]): Promise<number[][]> {
    if (this.fail) return Promise.reject(new Error("embeddings are down"));
    this.texts.push(...texts);
    return this.#inner.embed(texts);
  }
}

const tool = (name: string, description: string, args: string[] = []): PlannerTool => ({
  name,
  description,
  argsSchema: { type: "object", properties: Object.fromEntries(args.map((a) => [a, {}])) },
});

const TOOLS = [
  tool("slack__post_message", "Post a new message to a Slack channel", ["channel_id", "text"]),
  tool("github__create_issue", "Create a new issue in a GitHub repository", ["owner", "repo"]),
  tool("github__list_pull_requests", "List pull requests in a GitHub repository", ["state"]),
  tool("stripe__create_refund", "Refund a payment", ["payment_intent", "amount"]),
];

Deno.test("tool search ranks by name, description and argument names", async () => {
  const index = new ToolIndex({ embedder: new HashingEmbedder() });
  const names = async (text: string) => (await index.rank(TOOLS, { text }))[0].name;
  assert.equal(await names("post a message to the releases channel"), "slack__post_message");
  assert.equal(await names("open an issue about the login bug"), "github__create_issue");
  assert.equal(await names("which PRs are still open?"), "github__list_pull_requests");
  assert.equal(await names("give back 20 dollars of that payment_intent"), "stripe__create_refund");
});

Deno.test("the ranking is deterministic and ranks only the candidates", async () => {
  const index = new ToolIndex({ embedder: new HashingEmbedder() });
  const candidates = new Set(["github__create_issue", "stripe__create_refund"]);
  const first = await index.rank(TOOLS, { text: "nothing in common" }, { candidates });
  const again = await index.rank(TOOLS, { text: "nothing in common" }, { candidates });
  assert.deepEqual(first.map((t) => t.name), again.map((t) => t.name));
  assert.deepEqual(first.map((t) => t.name).sort(), [...candidates].sort());
});

Deno.test("tool vectors are computed once per catalog, and a changed tool alone is embedded again", async () => {
  const embedder = new CountingEmbedder();
  const index = new ToolIndex({ embedder });
  const vector = (await embedder.embed(["query"]))[0];
  embedder.texts.length = 0;
  await index.rank(TOOLS, { text: "query", vector });
  assert.equal(index.embeddedTexts, TOOLS.length);
  assert.deepEqual(embedder.texts, TOOLS.map(toolText), "the query's own vector was used");
  await index.rank(TOOLS, { text: "another request", vector });
  await index.rank([...TOOLS], { text: "a new catalog version, the same tools", vector });
  assert.equal(index.embeddedTexts, TOOLS.length, "no tool embedded twice");
  const changed = [
    ...TOOLS.slice(1),
    tool("slack__post_message", "Post to a channel, threads too"),
  ];
  await index.rank(changed, { text: "post", vector });
  assert.equal(index.embeddedTexts, TOOLS.length + 1, "only the changed tool");
});

Deno.test("a message's vector of another length than the configured dimensions is used, not embedded again", async () => {
  // A local model's 384-dimension vectors behind an embedder configured for 1536 (the default).
  const inner = new HashingEmbedder({ dimensions: 384 });
  const texts: string[] = [];
  const embedder: Embedder = {
    model: "local-384",
    dimensions: 1536,
    embed: (input) => {
      texts.push(...input);
      return inner.embed(input);
    },
  };
  const index = new ToolIndex({ embedder });
  const [vector] = await inner.embed(["refund that payment"]);
  const ranked = await index.rank(TOOLS, { text: "refund that payment", vector });
  assert.deepEqual(texts, TOOLS.map(toolText), "the tools only: the message was embedded once");
  assert.equal(ranked[0].name, "stripe__create_refund");
  const padded = [...vector, ...new Array(1536 - 384).fill(0)];
  const again = await index.score(TOOLS, { text: "refund that payment", vector: padded });
  assert.equal(texts.length, TOOLS.length, "a zero-padded vector is used too");
  assert.equal(again[0].vectorRank, 1);
});

Deno.test("when the embedder fails, tool search still ranks by words, and tries the vectors again later", async () => {
  const embedder = new CountingEmbedder();
  embedder.fail = true;
  const index = new ToolIndex({ embedder });
  const ranked = await index.rank(TOOLS, { text: "refund the payment" });
  assert.equal(ranked[0].name, "stripe__create_refund");
  assert.equal(index.embeddedTexts, 0);
  embedder.fail = false;
  await index.rank(TOOLS, { text: "refund the payment" });
  assert.equal(index.embeddedTexts, TOOLS.length);
});

Deno.test("a tool plainly matches with a word of the request in its name or two in its words, not one in its description", async () => {
  const index = new ToolIndex({ embedder: new HashingEmbedder() });
  const matched = async (text: string) =>
    (await index.score(TOOLS, { text })).filter((s) => s.matched).map((s) => s.tool.name).sort();
  // "new" is in two descriptions only: a shared word, not a match.
  assert.deepEqual(await matched("what is new today"), []);
  // A name word, or two words of a description.
  assert.deepEqual(await matched("refund me"), ["stripe__create_refund"]);
  assert.deepEqual(await matched("a new repository"), ["github__create_issue"]);
});

Deno.test("a tool's name is read as words: separators, camel case and acronyms", () => {
  const text = (name: string) => toolText(tool(name, "d")).split(":")[0];
  assert.equal(text("github__create_issue"), "github create issue");
  assert.equal(text("API-post-search"), "API post search");
  assert.equal(text("getCurrentTime"), "get Current Time");
  assert.equal(text("PDF_URLTool"), "PDF URL Tool");
  assert.equal(text("HTTPServer2Status"), "HTTP Server2 Status");
});

Deno.test("a query's words count fully, related words and channel names at half weight", () => {
  const terms = Object.fromEntries(queryTerms("Open a PR in #dev").map((t) => [t.term, t.weight]));
  assert.equal(terms.pull, 1, "an abbreviation is the word itself");
  assert.equal(terms.request, 1);
  assert.equal(terms.open, 1);
  assert.equal(
    terms[stemEnglish("create")],
    0.5,
    "a related verb, stemmed as the tools' words are",
  );
  assert.equal(terms.channel, 0.5, "#dev names a channel");
});

Deno.test("on 296 real MCP tools, the 24 best matches hold at least 90% of what 137 labelled requests need", async () => {
  const catalog = registerCatalog(catalogTools()).getToolMetadataList();
  const index = new ToolIndex({ embedder: new HashingEmbedder() });
  const requests = labelledRequests();
  let total = 0;
  for (const { request, needs } of requests) {
    const ranked = await index.rank(catalog, { text: request });
    total += recall(needs, new Set(ranked.slice(0, 24).map((t) => t.name)));
  }
  assert.ok(total / requests.length >= 0.9, `recall@24 ${total / requests.length}`);
});
