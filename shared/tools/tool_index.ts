/**
 * Ranks tools against a text, for tool search: a lexical score (BM25 over a
 * tool's name words, counted twice, its description and its argument names,
 * as Snowball English stems without stop words) and the configured
 * embedder's cosine similarity, fused by weighted reciprocal rank (RRF,
 * k = 60). The lexical side weighs twice the vector side: on public data
 * (MetaTool) the hashing vectors alone find fewer tools than the words, and
 * at equal weight their misses push words' hits out of the first few. Tool
 * vectors are computed once per tool text, so a catalog that changes (a
 * remote server's `list_changed`) embeds only its new or changed tools, never
 * a request's whole catalog.
 */
import { searchTerms } from "../text/search_terms.ts";
import type { Embedder, PlannerTool, UsageMeter } from "../ports.ts";
import { type QueryTerm, queryTerms } from "./query_terms.ts";

/** What to rank against: a text, and its vector when the caller has one from the same embedder. */
export interface RankQuery {
  text: string;
  vector?: readonly number[];
}

/** Options of one ranking. */
export interface RankOptions {
  /** Rank only these tools (default: all of the catalog). */
  candidates?: ReadonlySet<string>;
  signal?: AbortSignal;
  /** Counts the tokens of embedding the query, when it is embedded. */
  usage?: UsageMeter;
}

/** RRF's constant: ranks past the first few weigh little, and no list dominates. */
const RRF_K = 60;

/** Each side's weight in the fusion (chosen on MetaTool's even queries, confirmed on the odd ones). */
export const FUSION_WEIGHTS = Object.freeze({ lexical: 1, vector: 0.5 });

/** One tool's standing in a ranking: what each side found, and the fused score. */
export interface ScoredTool {
  tool: PlannerTool;
  /** BM25 score (0: no term of the query in the tool's words). */
  lexical: number;
  /**
   * Whether the tool plainly matches the request: one of the request's own
   * words (not only a related word) in its name, or two of them anywhere in
   * its words. One shared word in a description ("current", "information")
   * is too weak to claim a slot (fair_share.ts).
   */
  matched: boolean;
  /** Rank on the vector side (1 = closest), when the vectors were compared. */
  vectorRank?: number;
  /** The weighted RRF score the order comes from. */
  score: number;
}

/** Ranks tools by the hybrid score of the module doc. */
export class ToolIndex {
  readonly #embedder: Embedder;
  readonly #vectors = new Map<string, { text: string; vector: number[] }>();
  #lexical: { catalog: readonly PlannerTool[]; index: Bm25 } | undefined;
  #embedding: { catalog: readonly PlannerTool[]; done: Promise<boolean> } | undefined;
  /** How many tool texts were embedded so far (tests see a catalog embedded once). */
  embeddedTexts = 0;

  constructor({ embedder }: { embedder: Embedder }) {
    this.#embedder = embedder;
  }

  /** The embedder's model (a query vector from another model is not used). */
  get model(): string {
    return this.#embedder.model;
  }

  /**
   * The candidates of `catalog`, best first. When the embedder fails, the
   * ranking is lexical only (and the vectors are tried again next time).
   */
  async rank(
    catalog: readonly PlannerTool[],
    query: RankQuery,
    options: RankOptions = {},
  ): Promise<PlannerTool[]> {
    return (await this.score(catalog, query, options)).map((scored) => scored.tool);
  }

  /** Like {@link rank}, with what each side found for each tool. */
  async score(
    catalog: readonly PlannerTool[],
    query: RankQuery,
    { candidates, signal, usage }: RankOptions = {},
  ): Promise<ScoredTool[]> {
    const tools = candidates ? catalog.filter((tool) => candidates.has(tool.name)) : [...catalog];
    const terms = queryTerms(query.text);
    const index = this.#lexicalIndex(catalog);
    const lexical = index.scores(terms);
    const own = terms.filter((term) => term.weight >= 1).map(({ term }) => term);
    const byLexical = tools.filter((tool) => (lexical.get(tool.name) ?? 0) > 0)
      .sort((a, b) => lexical.get(b.name)! - lexical.get(a.name)! || byName(a, b));
    const vectors = await this.#vectorsFor(catalog, signal);
    const queryVector = vectors ? await this.#queryVector(query, signal, usage) : undefined;
    const similarity = new Map<string, number>();
    if (queryVector) {
      for (const tool of tools) {
        const entry = this.#vectors.get(tool.name);
        if (entry) similarity.set(tool.name, paddedCosine(queryVector, entry.vector));
      }
    }
    const byVector = tools.filter((tool) => similarity.has(tool.name))
      .sort((a, b) => similarity.get(b.name)! - similarity.get(a.name)! || byName(a, b));
    const scored = new Map<string, ScoredTool>(
      tools.map((tool) => [tool.name, {
        tool,
        lexical: lexical.get(tool.name) ?? 0,
        matched: index.plainlyMatches(tool.name, own),
        score: 0,
      }]),
    );
    byLexical.forEach((tool, rank) => {
      scored.get(tool.name)!.score += FUSION_WEIGHTS.lexical / (RRF_K + rank + 1);
    });
    byVector.forEach((tool, rank) => {
      const entry = scored.get(tool.name)!;
      entry.vectorRank = rank + 1;
      entry.score += FUSION_WEIGHTS.vector / (RRF_K + rank + 1);
    });
    return [...scored.values()].sort((a, b) => b.score - a.score || byName(a.tool, b.tool));
  }

  #lexicalIndex(catalog: readonly PlannerTool[]): Bm25 {
    if (this.#lexical?.catalog !== catalog) {
      this.#lexical = {
        catalog,
        index: new Bm25(catalog.map((t) => [t.name, toolWords(t), searchTerms(nameWords(t.name))])),
      };
    }
    return this.#lexical.index;
  }

  /** Embeds the tools whose text is new (once per catalog); false when the embedder failed. */
  #vectorsFor(catalog: readonly PlannerTool[], signal?: AbortSignal): Promise<boolean> {
    if (this.#embedding?.catalog !== catalog) {
      const done = this.#embedMissing(catalog, signal);
      this.#embedding = { catalog, done };
      // A failure is not kept: the next ranking tries again.
      done.then((ok) => {
        if (!ok && this.#embedding?.done === done) this.#embedding = undefined;
      });
    }
    return this.#embedding.done;
  }

  async #embedMissing(catalog: readonly PlannerTool[], signal?: AbortSignal): Promise<boolean> {
    const missing = catalog
      .map((tool) => ({ name: tool.name, text: toolText(tool) }))
      .filter(({ name, text }) => this.#vectors.get(name)?.text !== text);
    if (missing.length === 0) return true;
    try {
      const vectors = await this.#embedder.embed(missing.map((m) => m.text), { signal });
      missing.forEach(({ name, text }, i) => this.#vectors.set(name, { text, vector: vectors[i] }));
      this.embeddedTexts += missing.length;
      // Tools gone from the catalog (a server's list changed) are forgotten.
      if (this.#vectors.size > catalog.length) {
        const names = new Set(catalog.map((tool) => tool.name));
        for (const name of this.#vectors.keys()) if (!names.has(name)) this.#vectors.delete(name);
      }
      return true;
    } catch {
      return false;
    }
  }

  async #queryVector(
    query: RankQuery,
    signal?: AbortSignal,
    usage?: UsageMeter,
  ): Promise<readonly number[] | undefined> {
    // The message's vector from the context stage, whatever its length: one embedding per message.
    if (query.vector && query.vector.length > 0) return query.vector;
    try {
      return (await this.#embedder.embed([query.text], { signal, usage }))[0];
    } catch {
      return undefined;
    }
  }
}

/**
 * Cosine similarity of two vectors of one model that may differ in length
 * only by zero padding (a stored vector is padded to 1536): the missing tail counts as zeros.
 */
function paddedCosine(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < n; i++) dot += a[i] * b[i];
  for (const x of a) na += x * x;
  for (const x of b) nb += x * x;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** The text a tool's vector is computed from: name words, description, argument names. */
export function toolText(tool: PlannerTool): string {
  const args = argNames(tool).join(", ");
  return `${nameWords(tool.name)}: ${tool.description}${args ? `\nArguments: ${args}` : ""}`;
}

/** The words BM25 scores a tool by: its name's twice, its description's, its arguments'. */
function toolWords(tool: PlannerTool): string[] {
  const name = searchTerms(nameWords(tool.name));
  return [
    ...name,
    ...name,
    ...searchTerms(tool.description),
    ...searchTerms(argNames(tool).map(splitCamel).join(" ")),
  ];
}

function argNames(tool: PlannerTool): string[] {
  const properties = tool.argsSchema?.properties;
  return properties && typeof properties === "object" ? Object.keys(properties) : [];
}

/** `github__create_issue` and `API-post-search` as words. */
function nameWords(name: string): string {
  return splitCamel(name).replace(/[_.-]+/g, " ").trim();
}

/** `createIssue` and `PDFURLTool` as words (`create Issue`, `PDFURL Tool`). */
function splitCamel(text: string): string {
  return text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2");
}

function byName(a: PlannerTool, b: PlannerTool): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Okapi BM25 (k1 = 1.2, b = 0.75) over a fixed set of documents (a tool's words, and its name's). */
class Bm25 {
  readonly #docs: { name: string; terms: Map<string, number>; length: number }[];
  readonly #byName = new Map<string, { terms: Map<string, number>; title: Set<string> }>();
  readonly #idf = new Map<string, number>();
  readonly #averageLength: number;

  constructor(docs: [string, string[], string[]][]) {
    const df = new Map<string, number>();
    this.#docs = docs.map(([name, words, title]) => {
      const terms = new Map<string, number>();
      for (const word of words) terms.set(word, (terms.get(word) ?? 0) + 1);
      for (const term of terms.keys()) df.set(term, (df.get(term) ?? 0) + 1);
      this.#byName.set(name, { terms, title: new Set(title) });
      return { name, terms, length: words.length };
    });
    const n = this.#docs.length;
    for (const [term, count] of df) {
      this.#idf.set(term, Math.log(1 + (n - count + 0.5) / (count + 0.5)));
    }
    this.#averageLength = this.#docs.reduce((sum, doc) => sum + doc.length, 0) / (n || 1);
  }

  /** Whether document `name` holds one of `terms` in its name, or two of them anywhere. */
  plainlyMatches(name: string, terms: readonly string[]): boolean {
    const doc = this.#byName.get(name);
    if (!doc) return false;
    const held = new Set(terms.filter((term) => doc.terms.has(term)));
    return held.size >= 2 || [...held].some((term) => doc.title.has(term));
  }

  /** Each document's score for `query` (documents sharing no term are left out). */
  scores(query: readonly QueryTerm[]): Map<string, number> {
    const terms = query.filter(({ term }) => this.#idf.has(term));
    const scores = new Map<string, number>();
    for (const doc of this.#docs) {
      let score = 0;
      for (const { term, weight } of terms) {
        const tf = doc.terms.get(term);
        if (!tf) continue;
        const norm = tf + 1.2 * (0.25 + 0.75 * doc.length / (this.#averageLength || 1));
        score += weight * this.#idf.get(term)! * (tf * 2.2) / norm;
      }
      if (score > 0) scores.set(doc.name, score);
    }
    return scores;
  }
}
