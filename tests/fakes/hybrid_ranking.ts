/**
 * `hybrid_match_chat_messages` in TypeScript, for the in-memory store: the
 * same two rankings, the same fusion and the same order (statements before
 * questions among each side's best, and in the result), over rows already
 * scoped to one owner (and session). What it
 * approximates: Postgres's "simple" parser, by lower-cased runs of letters and
 * digits ("LIN-4417" is "lin" and "-4417" there, "lin" and "4417" here; both
 * match the same text), and only the exact path (scopes of at most 2,000 rows).
 */
import { cosine } from "../../shared/text/words.ts";
import type { MatchSource, SemanticMatch, StoredMessage } from "../../shared/ports.ts";

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
  rrfK: number;
}

/** The lexemes of a text, as the "simple" configuration gives them (approximately). */
export function lexemes(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
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
    ? fullTextRanking(rows, lexemes(query.text), pool)
    : [];
  const vector = query.semanticWeight > 0 ? vectorRanking(rows, query, pool) : [];
  const byId = new Map(rows.map((row) => [row.id, row]));
  const fused = new Map<string, { score: number; foundBy: MatchSource[]; similarity?: number }>();
  const add = (id: string, source: MatchSource, weight: number, rank: number) => {
    const entry = fused.get(id) ?? { score: 0, foundBy: [] };
    entry.score += weight / (query.rrfK + rank);
    entry.foundBy.push(source);
    fused.set(id, entry);
  };
  fullText.forEach((id, index) => add(id, "full_text", query.fullTextWeight, index + 1));
  vector.forEach((id, index) => add(id, "vector", query.semanticWeight, index + 1));
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

/** The user's rows holding any wanted lexeme, by the summed rarity of those they hold. */
function fullTextRanking(rows: readonly RankedRow[], wanted: string[], pool: number): string[] {
  const want = new Set(wanted);
  const candidates = rows
    .filter((row) => row.role === "user")
    .map((row) => ({ row, held: lexemes(row.content).filter((word) => want.has(word)) }))
    .filter(({ held }) => held.length > 0)
    .sort((a, b) => b.row.seq - a.row.seq)
    .slice(0, 2000);
  const hits = new Map<string, number>();
  for (const { held } of candidates) {
    for (const word of held) hits.set(word, (hits.get(word) ?? 0) + 1);
  }
  const n = candidates.length;
  const ranked = candidates
    .map(({ row, held }) => ({
      row,
      rarity: held.reduce(
        (sum, word) => sum + Math.log(1 + (n - hits.get(word)! + 0.5) / (hits.get(word)! + 0.5)),
        0,
      ),
    }))
    .sort((a, b) => b.rarity - a.rarity || b.row.seq - a.row.seq);
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
