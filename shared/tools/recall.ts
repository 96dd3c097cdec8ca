/**
 * What the user said earlier that bears on their latest question, found
 * without a model: the statements (not questions) among the loaded recent
 * messages and semantic matches, and the items of their working memory, that
 * share most of the message's content words. "What is my favourite colour?"
 * finds "My favourite colour is teal". A question about the conversation
 * itself ("what did I say about Osaka?") finds the earlier messages, asks
 * included, on its topic (see {@link recallAbout}).
 */
import { contentWords as allContentWords, stem, tokenize } from "../text/words.ts";
import { memoryStatements } from "../memory/working_memory.ts";
import type { StoredMessage } from "../ports.ts";

/**
 * A text's content words for matching what was said: without the lone letters
 * an apostrophe leaves ("what's", "dog's", "don't" give "s" and "t"), which
 * would count as a word of the question that no answer holds.
 */
function contentWords(text: string): string[] {
  return allContentWords(text).filter((word) => word.length > 1 || !/^\p{L}$/u.test(word));
}

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

/** A question about what was said earlier: whose messages, and on what topic. */
export interface RecallQuestion {
  /** Whose messages: the user's ("what did I say"), the assistant's ("what did you say") or both ("we"). */
  roles: readonly string[];
  /** The topic as written ("Tokyo"), when the question names one. */
  topic?: string;
  /** The topic's content words (empty: the latest messages). */
  words: string[];
}

const ASKED_EARLIER = new RegExp(
  [
    String
      .raw`\b(?:what|which|when|where) (?:did|have|had) (i|you|we) (?:ever |already |just )?(?:ask|say|tell|mention|write|type|talk|discuss|share)`,
    String.raw`\bdid (i|you|we) (?:ever |already )?(?:ask|say|mention|tell|talk|write)`,
    String.raw`\bremind me (?:of )?what (i|you|we) (?:said|asked|told|mentioned|wrote|discussed)`,
    String.raw`\bwhat (?:was|were) (i|you|we) (?:saying|asking|talking|writing)`,
    String.raw`\bwhat have (i|you|we) been (?:saying|asking|talking)`,
  ].join("|"),
);
const TOPIC = /\b(?:about|regarding|concerning|on the subject of)\s+(.+?)[\s?.!]*$/i;
/** Words of a recall question that are not its topic. */
const RECALL_WORDS = new Set(
  ("ask asked say said tell told mention mentioned write wrote type typed talk talked discuss " +
    "discussed share shared earlier before previously ago last time today yesterday remind ever " +
    "already just conversation chat session what which when where about regarding concerning " +
    "been saying asking talking telling writing mentioning discussing sharing typing")
    .split(" ").map(stem),
);
/** Words of an "about …" that say when, not what: "so far", "in this chat", "until now". */
const WHEN_WORDS = new Set(
  ("so far now until lately recently thus earlier before previously today yesterday conversation " +
    "chat session thread").split(" ").map(stem),
);

/** The recall question `message` asks, if it asks one. */
export function recallQuestion(message: string): RecallQuestion | undefined {
  const match = ASKED_EARLIER.exec(tokenize(message).join(" "));
  if (!match) return undefined;
  const who = match.slice(1).find((group) => group !== undefined);
  const roles = who === "you" ? ["assistant"] : who === "we" ? ["user", "assistant"] : ["user"];
  const written = TOPIC.exec(message)?.[1]?.trim();
  // "About so far", "about in this chat": when, not what.
  const when = (word: string) => WHEN_WORDS.has(stem(word));
  const topic = written && !contentWords(written).every(when) ? written : undefined;
  // A topic is what follows "about", whatever its words ("writing"); without one, the
  // question's words that are not about asking are.
  const words = topic
    ? contentWords(topic).filter((word) => !when(word))
    : contentWords(message).filter((word) => !RECALL_WORDS.has(stem(word)) && !when(word));
  return { roles, topic, words };
}

/** Most messages a recall question brings back. */
const MAX_ABOUT = 5;

/**
 * The earlier messages a recall question asks for, oldest first: those of the
 * asked-about speaker holding at least half of the topic's words (rounded
 * up), or their latest ones when it names no topic. Other recall questions
 * are left out.
 */
export function recallAbout(
  question: RecallQuestion,
  context: Record<string, unknown>,
): StoredMessage[] {
  const seen = new Set<string>();
  const found = [...messagesIn(context.recentMessages), ...messagesIn(context.semanticMatches)]
    .filter((said) => {
      if (seen.has(said.id) || !question.roles.includes(said.role)) return false;
      seen.add(said.id);
      if (recallQuestion(said.content)) return false;
      if (question.words.length === 0) return true;
      const words = new Set(contentWords(said.content));
      const shared = question.words.filter((word) => words.has(word)).length;
      return shared >= Math.ceil(question.words.length / 2);
    })
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return found.slice(-MAX_ABOUT);
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
