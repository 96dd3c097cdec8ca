/**
 * What the user said earlier that bears on their latest question, found
 * without a model: the statements (not questions) among the loaded recent
 * messages and semantic matches, and the items of their working memory, that
 * share most of the message's content words. "What is my favourite colour?"
 * finds "My favourite colour is teal".
 */
import { contentWords } from "../text/words.ts";
import { memoryStatements } from "../memory/working_memory.ts";
import type { StoredMessage } from "../ports.ts";

/** Most statements recalled. */
const MAX_RECALLED = 2;
/** Least share of the message's content words a statement must contain. */
const MIN_OVERLAP = 0.5;

/** The user's earlier statements in `context` (recent messages, semantic matches) relevant to `message`. */
export function recallStatements(
  message: string,
  context: Record<string, unknown>,
): StoredMessage[] {
  const wanted = new Set(contentWords(message));
  // A statement is not answered from memory: "lunch is at noon" should not quote "lunch was late".
  if (wanted.size === 0 || !isQuestion(message)) return [];
  const seen = new Set<string>();
  const scored: { said: StoredMessage; score: number; order: number }[] = [];
  const candidates = [
    ...messagesIn(context.semanticMatches),
    ...messagesIn(context.recentMessages),
  ];
  candidates.forEach((said, order) => {
    if (seen.has(said.id) || said.role !== "user" || isQuestion(said.content)) return;
    seen.add(said.id);
    const words = new Set(contentWords(said.content));
    const shared = [...wanted].filter((word) => words.has(word)).length;
    const score = shared / wanted.size;
    if (shared > 0 && score >= MIN_OVERLAP) scored.push({ said, score, order });
  });
  return scored.sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, MAX_RECALLED).map(({ said }) => said);
}

/** The items of the caller's working memory (`context.workingMemory`) relevant to `message`. */
export function recallMemory(message: string, context: Record<string, unknown>): string[] {
  const wanted = new Set(contentWords(message));
  if (wanted.size === 0 || !isQuestion(message)) return [];
  const scored = memoryStatements(context.workingMemory).flatMap((text, order) => {
    const words = new Set(contentWords(text));
    const shared = [...wanted].filter((word) => words.has(word)).length;
    const score = shared / wanted.size;
    return shared > 0 && score >= MIN_OVERLAP ? [{ text, score, order }] : [];
  });
  return scored.sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, MAX_RECALLED).map(({ text }) => text);
}

/** A question: it ends with "?" or opens with a question word ("what is my favourite colour"). */
function isQuestion(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.endsWith("?") || QUESTION_START.test(trimmed);
}

const QUESTION_START =
  /^(what|what's|whats|who|whom|whose|where|when|which|why|how|do|does|did|is|are|was|were|can|could|remind me|tell me)\b/i;

/** The stored messages in a context value (anything else is ignored: context is open to requests). */
function messagesIn(value: unknown): StoredMessage[] {
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is StoredMessage =>
    typeof item === "object" && item !== null && typeof item.id === "string" &&
    typeof item.role === "string" && typeof item.content === "string"
  );
}
