/**
 * `hybrid_match_chat_messages` in TypeScript, for the in-memory store: the
 * same two rankings (BM25 with the same k1 and b, and the neighbours' shares;
 * cosine above the threshold), the same fusion and the same order
 * (statements before questions among each side's best, and in the result),
 * over rows already scoped to one owner (and session). What it approximates:
 * Postgres's parser, by lower-cased runs of letters and digits ("LIN-4417" is
 * "lin" and "-4417" there, "lin" and "4417" here; both match the same text);
 * of the text search configurations, `simple` and `english` (Snowball's stems
 * and stop words, as shared/text/search_terms.ts gives them); BM25's length,
 * as Postgres's `length(tsvector)`, by the number of distinct lexemes; and
 * only the exact path (scopes of at most 2,000 rows).
 */
import { searchTerms } from "../../shared/text/search_terms.ts";
import { textSearchConfigFor } from "../../shared/text/text_search_config.ts";
import { cosine, tokenize } from "../../shared/text/words.ts";
import type { MatchSource, SemanticMatch, StoredMessage } from "../../shared/ports.ts";
import { semanticWeightFor } from "../../shared/store/sql_conversation_store.ts";

/** A stored row as the ranking needs it. */
export interface RankedRow extends StoredMessage {
  seq: number;
  embedding?: number[];
  embeddingModel?: string;
}

/** What to rank for. */
export interface HybridQuery {
  text?: string;
  embedding: number[];
  embeddingModel: string;
  matchCount: number;
  matchThreshold: number;
  fullTextWeight: number;
  semanticWeight: number;
  /** Per-model weights of the vector ranking (the store's option). */
  semanticWeights?: Readonly<Record<string, number>>;
  rrfK: number;
  /** The configured text search configuration ("auto" by default). */
  textSearchConfig?: string;
  /** Rows that count for the statistics and as neighbours but are not returned (the recent window). */
  exclude?: ReadonlySet<string>;
}

/** The lexemes of a text under a configuration, repeats kept (approximately, see the module doc). */
export function lexemes(text: string, config = "simple"): string[] {
  return config === "english" ? searchTerms(text) : tokenize(text);
}

/**
 * `chat_query_terms`: the question's lexemes (its own, and its plain words that are not stop
 * words), each with the word it is a form of: a plain word and its stem are one word, named by
 * the stem.
 */
function queryTerms(text: string, config: string): Map<string, string> {
  const terms = new Map<string, string>();
  const add = (form: string, term: string) => {
    const had = terms.get(form);
    if (had === undefined || term < had) terms.set(form, term);
  };
  for (const word of lexemes(text, "simple")) {
    const [stem] = lexemes(word, config);
    if (stem !== undefined) add(word, stem);
  }
  for (const lexeme of lexemes(text, config)) add(lexeme, lexeme);
  return terms;
}

/** `chat_is_question`: ends with "?" or opens with a question word. */
export function isQuestion(text: string): boolean {
  return /\?\s*$/.test(text) || QUESTION_START.test(text);
}

const QUESTION_START =
  /^\s*(what|what's|whats|who|whom|whose|where|when|which|why|how|do|does|did|is|are|was|were|can|could|remind me|tell me)\b/i;

/** The matches among `rows` (already scoped and without the recent window), best first. */
export function hybridMatches(rows: readonly RankedRow[], query: HybridQuery): SemanticMatch[] {
  if (query.matchCount <= 0) return [];
  const pool = Math.min(Math.max(query.matchCount * 4, 20), 200);
  const fullText = query.fullTextWeight > 0 && query.text !== undefined
    ? fullTextRanking(rows, query, pool)
    : [];
  const semanticWeight = semanticWeightFor(query, query.embeddingModel);
  const vector = semanticWeight > 0
    ? vectorRanking(rows.filter((row) => !query.exclude?.has(row.id)), query, pool)
    : [];
  const byId = new Map(rows.map((row) => [row.id, row]));
  const fused = new Map<string, { score: number; foundBy: MatchSource[]; similarity?: number }>();
  const add = (id: string, source: MatchSource, weight: number, rank: number) => {
    const entry = fused.get(id) ?? { score: 0, foundBy: [] };
    entry.score += weight / (query.rrfK + rank);
    entry.foundBy.push(source);
    fused.set(id, entry);
  };
  fullText.forEach((id, index) => add(id, "full_text", query.fullTextWeight, index + 1));
  vector.forEach((id, index) => add(id, "vector", semanticWeight, index + 1));
  return [...fused].map(([id, { score, foundBy }]) => {
    const row = byId.get(id)!;
    const similarity = row.embedding && row.embeddingModel === query.embeddingModel
      ? cosine(row.embedding, query.embedding)
      : undefined;
    return {
      row,
      match: {
        ...strip(row),
        ...(similarity === undefined ? {} : { similarity }),
        foundBy: order(foundBy),
        score,
      },
    };
  }).sort((a, b) =>
    Number(isQuestion(a.row.content)) - Number(isQuestion(b.row.content)) ||
    b.match.score - a.match.score || b.row.seq - a.row.seq
  ).slice(0, query.matchCount).map(({ match }) => match);
}

const BM25 = { k1: 1.2, b: 0.3 };
const NEIGHBOUR_SHARES = [0.35, 0.5];

/**
 * The user's rows holding a wanted lexeme, by BM25 over the scope plus shares
 * of their neighbours' (the two user messages before and after in the session).
 * A lexeme weighs as its word: the rows holding each of the word's forms, added.
 */
function fullTextRanking(rows: readonly RankedRow[], query: HybridQuery, pool: number): string[] {
  const configured = query.textSearchConfig ?? "auto";
  const terms = queryTerms(query.text ?? "", textSearchConfigFor(query.text ?? "", configured));
  const scope = rows.filter((row) => row.role === "user").sort((a, b) => a.seq - b.seq).slice(-2000)
    .map((row) => {
      const words = lexemes(row.content, textSearchConfigFor(row.content, configured));
      const tf = new Map<string, number>();
      for (const word of words) tf.set(word, (tf.get(word) ?? 0) + 1);
      return { row, tf, length: tf.size };
    });
  const n = scope.length;
  const averageLength = Math.max(scope.reduce((sum, doc) => sum + doc.length, 0) / (n || 1), 1);
  const df = new Map<string, number>();
  for (const doc of scope) {
    for (const word of doc.tf.keys()) {
      const term = terms.get(word);
      if (term !== undefined) df.set(term, (df.get(term) ?? 0) + 1);
    }
  }
  const own = new Map(scope.map((doc) => {
    let score = 0;
    for (const [word, term] of terms) {
      const tf = doc.tf.get(word);
      if (!tf) continue;
      const count = df.get(term)!;
      const idf = Math.log(1 + (n - count + 0.5) / (count + 0.5));
      score += idf * tf * (BM25.k1 + 1) /
        (tf + BM25.k1 * (1 - BM25.b + BM25.b * doc.length / averageLength));
    }
    return [doc.row.id, score];
  }));
  const bySession = Map.groupBy(scope, (doc) => doc.row.sessionId);
  const ranked: { row: RankedRow; score: number }[] = [];
  for (const docs of bySession.values()) {
    docs.forEach((doc, i) => {
      const score = own.get(doc.row.id)!;
      if (score <= 0 || query.exclude?.has(doc.row.id)) return;
      const lent = NEIGHBOUR_SHARES.reduce(
        (sum, share, d) =>
          sum + share * ((own.get(docs[i - d - 1]?.row.id) ?? 0) +
              (own.get(docs[i + d + 1]?.row.id) ?? 0)),
        0,
      );
      ranked.push({ row: doc.row, score: score + lent });
    });
  }
  ranked.sort((a, b) => b.score - a.score || b.row.seq - a.row.seq);
  return statementsFirst(ranked.slice(0, pool * 2)).slice(0, pool).map(({ row }) => row.id);
}

/** Rows with a vector of the query's model, at least as similar as the threshold, closest first. */
function vectorRanking(rows: readonly RankedRow[], query: HybridQuery, pool: number): string[] {
  const ranked = rows
    .filter((row) => row.embedding && row.embeddingModel === query.embeddingModel)
    .map((row) => ({ row, similarity: cosine(row.embedding!, query.embedding) }))
    .filter(({ similarity }) => similarity >= query.matchThreshold)
    .sort((a, b) => b.similarity - a.similarity);
  return statementsFirst(ranked.slice(0, pool * 2)).slice(0, pool).map(({ row }) => row.id);
}

/** Statements before questions, each kept in the order they came in (a stable sort). */
function statementsFirst<T extends { row: RankedRow }>(ranked: T[]): T[] {
  return [...ranked].sort((a, b) =>
    Number(isQuestion(a.row.content)) - Number(isQuestion(b.row.content))
  );
}

function order(sources: MatchSource[]): MatchSource[] {
  return (["full_text", "vector"] as const).filter((source) => sources.includes(source));
}

function strip({ id, sessionId, role, content, createdAt }: RankedRow): StoredMessage {
  return { id, sessionId, role, content, createdAt };
}
