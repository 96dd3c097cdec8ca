/**
 * What the user said earlier that bears on their latest question, found
 * without a model: the statements (not questions) among the loaded recent
 * messages and semantic matches, and the items of their working memory, that
 * share most of the message's content words. "What is my favourite colour?"
 * finds "My favourite colour is teal". A question about the conversation
 * itself ("what did I say about Osaka?") finds the earlier messages, asks
 * included, on its topic (see {@link recallAbout}).
 */
import { afterTakingBack } from "../text/taking_back.ts";
import { stemEnglish } from "../text/english_stemmer.ts";
import { contentWords as allContentWords, stem, tokenize } from "../text/words.ts";
import { memoryStatements, NUMBER_WORDS, othersOwn } from "../memory/working_memory.ts";
import type { StoredMessage } from "../ports.ts";

/**
 * A text's content words for matching what was said: without the lone letters
 * an apostrophe leaves ("what's", "dog's", "don't" give "s" and "t"), which
 * would count as a word of the question that no answer holds.
 */
function contentWords(text: string): string[] {
  return allContentWords(text).filter((word) => word.length > 1 || !/^\p{L}$/u.test(word));
}

/**
 * The words a question wants an answer to hold: its content words, and for a
 * question about a thing of the writer's ("where did I leave my keys?", whose
 * answer names the keys) without its question words, which no answer holds.
 */
function wantedWords(message: string, head: string | undefined): string[] {
  const words = contentWords(asked(message));
  return head === undefined ? words : words.filter((word) => !QUESTION_WORDS.has(word));
}

/**
 * What a question asks, without the words that open it ("wait, where are the
 * documents?") or, for where a thing was put ("where did we put the
 * documents?"), the verb of putting: neither is in the answer ("the documents
 * are in the red folder"). "Where did I park?" keeps its verb: it is the thing.
 */
function asked(message: string): string {
  const words = tokenize(message);
  let first = 0;
  while (first < words.length - 1 && INTERJECTIONS.has(words[first])) first++;
  const rest = words.slice(first).filter((word) => !FILLERS.has(word));
  const putting = /^where (?:did|do|have|had) (?:i|we) (\w+) \S/.exec(rest.join(" "));
  return putting && PUTTING.has(putting[1])
    ? rest.filter((_, i) => i !== 3).join(" ")
    : rest.join(" ");
}

/** Whether the message asks, after the words that open it: "uh what's my locker number again". */
function asksQuestion(message: string): boolean {
  return isQuestion(message) || isQuestion(asked(message));
}

/** Words that open a question without being asked about. */
const INTERJECTIONS = new Set(
  "wait hmm hm oh ok okay so um uh er well hey sorry btw actually and but also quick question then"
    .split(" "),
);
/** Words a question may hold anywhere without asking about them: "what's my pin again". */
const FILLERS = new Set(["again", "please", "pls", "exactly", "anyway", "lol", "btw"]);
/** Verbs of putting a thing somewhere, after "where did I …". */
const PUTTING = new Set(
  "put leave left keep kept store stored place placed stick stuck hide hid hidden file filed save saved"
    .split(" "),
);

const QUESTION_WORDS = new Set([
  "what",
  "where",
  "when",
  "who",
  "whom",
  "whose",
  "which",
  "why",
  "how",
]);

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
  if (wanted.size === 0 || !asksQuestion(message) || aboutTheAssistant(message)) return [];
  const theirs = othersOwn(message);
  const head = ownedThing(message);
  const seen = new Set<string>();
  const scored: { said: StoredMessage; score: number; order: number }[] = [];
  const candidates = [
    ...messagesIn(context.semanticMatches),
    ...messagesIn(context.recentMessages),
  ];
  candidates.forEach((said, order) => {
    if (seen.has(said.id) || said.role !== "user" || isQuestion(said.content)) return;
    // "remember my colour is green": what it kept, the working memory holds (or forgot since).
    if (MEMORY_ASK.test(said.content)) return;
    if (theirs(said.content)) return;
    seen.add(said.id);
    const words = new Set(contentWords(said.content));
    if (head !== undefined && !words.has(head)) return;
    const shared = [...wanted].filter((word) => words.has(word)).length;
    const score = shared / wanted.size;
    if (shared > 0 && score >= MIN_OVERLAP) scored.push({ said, score, order });
  });
  return scored.sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, MAX_RECALLED).map(({ said }) => said);
}

/** A message asking to keep, forget or delete something, which is no statement of it. */
const MEMORY_ASK =
  /^\W*(?:(?:please|pls|ok|okay|and|also|so|now|can you|could you|would you)\W+)*(?:remember|memori[sz]e|forget|keep in mind|note that|don'?t forget|delete|erase|remove|drop|scrap|discard|wipe|get rid of)\b/i;

/**
 * The thing a question asks the writer's own of, as a content word: "food"
 * for "what's my favourite food?", "flight" for "when is my flight to Oslo?";
 * undefined when it names none after "my".
 */
function ownedThing(message: string): string | undefined {
  return ownedPhrase(message).at(-1);
}

/** The content words after "my" in a question: "locker", "number" for "what's my locker number?". */
function ownedPhrase(message: string): string[] {
  const words = tokenize(message);
  const my = words.indexOf("my");
  if (my < 0) return [];
  const phrase: string[] = [];
  for (const word of words.slice(my + 1, my + 4)) {
    if (PHRASE_ENDS.has(word)) break;
    phrase.push(word);
  }
  return contentWords(phrase.join(" "));
}
/** Words that end the phrase after "my": a preposition, a verb, a conjunction. */
const PHRASE_ENDS = new Set(
  "to in on at for of with from by about is are was were be been do does did and or please again then now s"
    .split(" "),
);

/** A question to the memory: "what do you remember about …", "do you know where I live". */
const ASKS_YOU_TO_RECALL = /\byou (?:still )?(?:remember|recall|know)\b/;
/** Words of a question to the memory that are not what it asks about. */
const ASKING_MEMORY = new Set(
  "remember recall know about regarding tell remind kept stored saved noted".split(" ").map(stem),
);

/**
 * The items of the caller's working memory (`context.workingMemory`) relevant
 * to `message`; all of them when a sentence of it asks what is remembered
 * ({@link asksToListMemory}).
 */
export function recallMemory(message: string, context: Record<string, unknown>): string[] {
  // All of it: the reply lists the last ones and says how many came before (the document is small).
  if (asksToListMemory(message)) return memoryStatements(context.workingMemory);
  // "what do you remember about my bike?" is about the bike.
  const toMemory = ASKS_YOU_TO_RECALL.test(tokenize(message).join(" "));
  const owned = ownedThing(message);
  // Words of one stem are one word here: "where did I park?" is answered by "I parked in lot C".
  const wanted = new Set(
    wantedWords(message, owned).filter((word) => !toMemory || !ASKING_MEMORY.has(word))
      .map(sameWord),
  );
  if (wanted.size === 0 || !asksQuestion(message) || aboutTheAssistant(message)) return [];
  const head = owned === undefined ? undefined : sameWord(owned);
  // "what's my locker number?" is answered by a fact of the locker holding a number ("my locker is 212").
  const numbered = owned !== undefined && NUMBER_WORDS.has(owned)
    ? ownedPhrase(message).at(-2)
    : undefined;
  // The number word is not in the fact: "my locker is 212".
  if (numbered !== undefined) wanted.delete(stemEnglish(owned!));
  const holdsHead = (words: ReadonlySet<string>, text: string) =>
    head === undefined || words.has(head) ||
    numbered !== undefined && words.has(stemEnglish(numbered)) && /\d/.test(text);
  // "what's my birthday?" is not "my mom's birthday is May 9".
  const theirs = othersOwn(message);
  const scored = memoryStatements(context.workingMemory).flatMap((text, order) => {
    if (theirs(text)) return [];
    const words = new Set(contentWords(text).map(sameWord));
    // "what's my favourite food?" is not "my favourite colour is green".
    if (!holdsHead(words, text)) return [];
    const shared = [...wanted].filter((word) => words.has(word)).length;
    const score = shared / wanted.size;
    return shared > 0 && score >= MIN_OVERLAP ? [{ text, score, order }] : [];
  });
  // "do you remember that I live in Porto?" quotes "I live in Porto", not "my sister lives in Oslo".
  const best = Math.max(0, ...scored.map(({ score }) => score));
  return scored.filter(({ score }) => score >= best * CLOSE_TO_BEST)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, MAX_RECALLED).map(({ text }) => text);
}

/**
 * A word's stem, one stem for the everyday words of one meaning: "mom" and
 * "mum" are "mother", "sis" is "sister", "called" is "named" ("what's my
 * cat called?" for "my cat is named Biscuit").
 */
function sameWord(word: string): string {
  const stemmed = stemEnglish(word);
  return SAME_WORDS.get(stemmed) ?? stemmed;
}
const SAME_WORDS = new Map(
  [
    "mother mom mum mommy mummy mama",
    "father dad daddy papa",
    "sister sis",
    "brother bro",
    "grandmother grandma granny gran nana nan",
    "grandfather grandpa granddad grandad",
    "husband hubby",
    "named called",
  ].flatMap((line) => {
    const [word, ...others] = line.split(" ").map(stemEnglish);
    return others.map((other) => [other, word] as const);
  }),
);

/**
 * Whether the question is about the assistant or the thing at hand, not the
 * writer: "what's your name?", "how does this work?" (not "what's my name?").
 */
function aboutTheAssistant(message: string): boolean {
  const words = tokenize(message);
  if (words.some((word) => FIRST_PERSON.has(word))) return false;
  return words.includes("your") ||
    /^(?:how|why) (?:does|do|did|is|can) (?:this|it|that)\b/.test(words.join(" "));
}
const FIRST_PERSON = new Set(["i", "me", "my", "mine", "myself", "we", "our", "us"]);

/** Least share of the best item's score a second remembered item must reach. */
const CLOSE_TO_BEST = 0.75;

/** Before a question about the memory: "ok", "so", "can you tell me", "list", "remind me". */
const MEMORY_ASK_OPENING = String
  .raw`^(?:(?:ok|okay|so|and|hey|hi|hello|now|please|then|also|thanks|thank you|cheers|great|cool|perfect|alright)\s+)*(?:(?:can|could|would|will) you\s+)?(?:please\s+)?(?:(?:tell|show|remind|give) me\s+|(?:list|show|summari[sz]e|pull up|bring up|dump(?: out)?|spit out|print(?: out)?)\s+)?`;
/** After it: "now", "please", "so far". */
const MEMORY_ASK_END = String
  .raw`(?:\s+(?:now|right now|please|so far|already|exactly|again|then|currently|at the moment|by now|yet|lol|in there|in your memory|at all|if any))*$`;
/** Whose: "about me", "stored on me", "about myself" (not "about Tokyo": that is a topic). */
const ON_ME = String
  .raw`(?:\s+(?:stored|saved|kept|on file))?\s+(?:about|of|on|for|regarding|concerning) (?:me|myself|us)`;
const ABOUT_ME = String.raw`(?:\s+(?:so far|already|yet))?(?:${ON_ME})?`;
/**
 * The verbs of keeping something in mind, as a question about the memory uses
 * them; "store", "save", "keep", "note" and "learn" only with whose ("what did
 * you learn about me"; not "what can you store?", "what did you learn?").
 */
const KEPT = String
  .raw`(?:(?:know|remember|remembered|recall|recalled|kept|saved|stored|noted|memori[sz]ed|(?:written|jotted|noted|put) down|have (?:saved|stored|kept|noted|remembered|on file)|got (?:saved|stored|on file))${ABOUT_ME}|(?:keep|save|store|note|learn|learned|learnt|memori[sz]e)(?:\s+(?:so far|already|yet))?${ON_ME})`;
const ASKS_MEMORY = [
  // "what do you know about me", "everything you remember", "what exactly have you saved"
  String
    .raw`(?:what|whatever|everything|anything|all|things|how much|how many (?:things|facts))(?: else| exactly| really| actually)?(?: (?:do|did|have|can|could) you| (?:you|u)(?: ve| have)?)(?: still| already)? ${KEPT}`,
  // "what's stored about me", "what is known about me"
  String.raw`(?:what s|what is|whats|what) (?:stored|saved|kept|remembered|known)${ON_ME}`,
  // "what do you have on me", "do you have anything saved about me"
  String
    .raw`(?:what|anything) (?:do|did|have) you (?:have|got)(?: (?:saved|stored|kept|on file))? (?:about|on|of) me`,
  // "do you remember things about me", "do you have any info on me"
  String
    .raw`do you (?:${KEPT}|have|hold|keep) (?:anything|things|stuff|much|something|any (?:info|information|details|facts|data))${ABOUT_ME}`,
  // "have you got any memories of me saved"
  String
    .raw`(?:have|do) you (?:got|have|keep|hold) any (?:memories|info|information|details|facts|notes)(?: (?:of|about|on) me)?(?: (?:saved|stored|kept))?`,
  // "what info you have stored on me"
  String
    .raw`(?:what|which) (?:facts|things|info|information|details) (?:you|u)(?: ve| have)?(?: have| got)? (?:stored|saved|kept)${ON_ME}`,
  // "is there anything personal you hold about me"
  String
    .raw`(?:is there )?(?:anything|something)(?: personal)? (?:you|u) (?:hold|have|keep|know|store|stored|saved)${ON_ME}`,
  // "anything on file about me", "the stuff you saved regarding me"
  String
    .raw`(?:anything|something|what s|what is|whats|what) (?:stored|saved|kept|on file)${ON_ME}`,
  String
    .raw`(?:the )?(?:stuff|things|facts|info|information|details) (?:you|u)(?: ve| have)? (?:saved|stored|kept|noted|remembered|know|got)${ON_ME}`,
  // "what is in your memory", "what's stored in my memory about me", "is there anything in it"
  String
    .raw`(?:is there )?(?:what s|what is|whats|what|anything|something) (?:stored |saved |kept |left )?(?:in|on) (?:your|my) memory(?: bank)?${ABOUT_ME}`,
  String.raw`(?:your|my) (?:memory|memories|saved facts|facts)`,
  // "show me your notes about me" (not "my notes": a notes tool's), "what's in your file on me",
  // "the notes you have on me"
  String.raw`(?:(?:what s|what is|whats|what) in )?your (?:notes|file)${ABOUT_ME}`,
  String.raw`(?:the )?notes you(?: ve| have)? (?:have|kept|took|taken|made|got)${ON_ME}`,
  // "which facts about me did you save"
  String
    .raw`(?:what|which) (?:facts|things|info|information|details|notes)${ON_ME} (?:do|did|have) you (?:${KEPT}|have|got|save|store|keep|note|remember)`,
  String
    .raw`(?:what|which) (?:facts|things|info|information|details) (?:do|did|have) you (?:${KEPT}|(?:have|got)${ABOUT_ME})`,
  // "what have I told you to remember", "remind me what I asked you to keep in mind"
  String
    .raw`what (?:have |did )?i (?:told|tell|asked|ask) you to (?:remember|note|keep(?: in mind)?|save|store)`,
].map((body) => new RegExp(`${MEMORY_ASK_OPENING}(?:${body})${MEMORY_ASK_END}`));

/**
 * What may stand beside a question about the memory, a sentence of its own:
 * thanks, a greeting, or a few words that ask for nothing ("Be honest.", "Just
 * curious."; not "List my loops.", nor a question).
 */
const BESIDE_MEMORY_ASK =
  /^(?:(?:thanks|thank you|cheers|ok|okay|great|cool|hi|hello|hey|lol|haha|be|just|please|honestly|seriously|i m|i am|curious|no rush)(?:\s+\S+){0,3})$/;

/**
 * Whether the message asks what the memory holds about the user: "what do you
 * know about me?", "anything you remember?", "what's stored in your memory",
 * "show me my facts", "remind me what I asked you to remember" — a sentence of
 * it, the others thanks, a greeting or a few words that ask for nothing
 * ("thanks! what do you know about me? Be honest.") — not a topic ("what do
 * you remember about Tokyo?": that is matched by its words).
 */
export function asksWhatIsRemembered(message: string): boolean {
  return isWholeAsk(memoryAsk(message));
}

/** Whether the memory question is all the message asks: the other sentences ask for nothing. */
function isWholeAsk({ sentences, asking }: MemoryAsk): boolean {
  return asking >= 0 &&
    sentences.every(({ words, asks }, i) =>
      i === asking || (!asks && BESIDE_MEMORY_ASK.test(words))
    );
}

/**
 * Whether a sentence of the message asks what the memory holds, whatever the
 * others ask: "what do you know about me? Also, what time is it in Lima?" is
 * answered with both (the planner plans the rest).
 */
export function asksToListMemory(message: string): boolean {
  return memoryAsk(message).asking >= 0;
}

/**
 * The message without its question about the memory, when another sentence
 * asks for more: "what have you saved about me? And what day is it in
 * Auckland?" is planned as its second sentence (the reply lists the memory).
 */
export function withoutMemoryQuestion(message: string): string {
  const ask = memoryAsk(message);
  if (ask.asking < 0 || isWholeAsk(ask)) return message;
  return ask.sentences.filter((_, i) => i !== ask.asking).map(({ text }) => text.trim()).join(" ");
}

/** The message's sentences, and the index of the first that asks what the memory holds (or -1). */
interface MemoryAsk {
  sentences: { text: string; words: string; asks: boolean }[];
  asking: number;
}

function memoryAsk(message: string): MemoryAsk {
  // "never mind, what do you know about me?": what follows the taking back asks.
  // A clause after ", and" / ", also" counts as a sentence: "what do you know about me, and …";
  // so does one after "and" that opens with a request's verb ("… about me and list my loops").
  const sentences = (afterTakingBack(message).match(/[^.!?;]+[.!?;]*/g) ?? []).flatMap((text) =>
    text.split(
      /,\s*(?=(?:and|also|then|plus)\s)|\s+(?=and\s+(?:then\s+)?(?:list|show|tell|give|start|create|delete|erase|remember|forget|record|log|score|get|check|what|how|when|where|which)\b)/i,
    )
  ).map((text) => ({
    text,
    words: tokenize(text).join(" "),
    asks: text.trim().endsWith("?"),
  })).filter(({ words }) => words !== "");
  const asking = sentences.findIndex(({ words }) =>
    ASKS_MEMORY.some((pattern) => pattern.test(words))
  );
  return { sentences, asking };
}

/** A question about what was said earlier: whose messages, and on what topic. */
export interface RecallQuestion {
  /** Whose messages: the user's ("what did I say"), the assistant's ("what did you say") or both ("we"). */
  roles: readonly string[];
  /** The topic as written ("Tokyo"), when the question names one. */
  topic?: string;
  /** The topic's content words (empty: the latest messages). */
  words: string[];
  /** Whether it asks for the first message ("what was my first question?"). */
  first?: boolean;
}

const ASKED_EARLIER = new RegExp(
  [
    String
      .raw`\b(?:what|which|when|where) (?:did|have|had) (i|you|we) (?:ever |already |just )?(?:ask|say|tell|mention|write|type|talk|discuss|share)`,
    String.raw`\bdid (i|you|we) (?:ever |already )?(?:ask|say|mention|tell|talk|write)`,
    String.raw`\bremind me (?:of )?what (i|you|we) (?:said|asked|told|mentioned|wrote|discussed)`,
    String.raw`\bwhat (?:was|were) (i|you|we) (?:saying|asking|talking|writing)`,
    String.raw`\bwhat have (i|you|we) been (?:saying|asking|talking)`,
    String.raw`\bwhat (?:have|did|had) (we|i|you) (?:covered|cover|gone over|go over|done|do)\b`,
    String
      .raw`\b(i|you|we) (?:were|was) (?:just )?(?:talking|asking|saying|chatting|discussing) about`,
    String
      .raw`\bwhat (?:was|were|is|are) (my|your|our) (?:(first|very first)|last|previous|earlier|latest|other) (?:messages?|questions?)`,
    String.raw`\bwhat did (i|you|we) (?:(open|start|begin) with|say first)`,
    // "what number did I just mention?", "list the places I asked about"
    String
      .raw`\b(?:what|which) \w+ (?:did|have|had) (i|you|we) (?:ever |already |just )?(?:ask|say|tell|mention|write|type|talk|discuss|share)`,
    String
      .raw`\b(?:list|show|name) (?:me )?(?:the |all the )?\w+ (i|you|we) (?:ve |have )?(?:asked|said|mentioned|talked|told)`,
    String
      .raw`^(?:(?:ok|so|can you|could you|please)\s+)*(?:give me|i want|can i get|can i have) an? (?:quick |short |brief )?(?:recap|summary)$`,
    // "summarize this chat", "recap our conversation": what the user asked in it.
    String
      .raw`\b(?:summari[sz]e|recap|sum up|go over|give me a (?:summary|recap) of) (?:this|our|the) (?:chat|conversation|session|thread|discussion)`,
  ].join("|"),
);
/** Whose messages a recall question's word asks for. */
const ROLES_OF: Record<string, readonly string[]> = {
  you: ["assistant"],
  your: ["assistant"],
  we: ["user", "assistant"],
  our: ["user", "assistant"],
};
const TOPIC = /\b(?:about|regarding|concerning|on the subject of)\s+(.+?)[\s?.!]*$/i;
/** What may follow a topic and is no part of it: "earlier", "in this chat", "right?". */
const TOPIC_TAIL =
  /(?:[\s,]+(?:earlier|before|previously|so far|today|yesterday|in (?:this|our|the) (?:chat|conversation|session|thread)|right|correct|yes|yeah|no|too|again|huh|eh))+[\s,?.!]*$/i;
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
  if (asksToListMemory(message)) return undefined;
  const match = ASKED_EARLIER.exec(tokenize(message).join(" "));
  if (!match) return undefined;
  const [who, first] = match.slice(1).filter((group) => group !== undefined);
  const roles = ROLES_OF[who ?? "i"] ?? ["user"];
  // "about sushi earlier, right?": the topic is "sushi".
  const written = TOPIC.exec(message)?.[1]?.replace(TOPIC_TAIL, "").trim();
  // "About so far", "about in this chat": when, not what.
  const when = (word: string) => WHEN_WORDS.has(stem(word));
  const topic = written && !contentWords(written).every(when) ? written : undefined;
  // A topic is what follows "about", whatever its words ("writing"); without one, the
  // question's words that are not about asking are.
  const words = topic
    ? contentWords(topic).filter((word) => !when(word))
    : contentWords(message).filter((word) => !RECALL_WORDS.has(stem(word)) && !when(word));
  return { roles, topic, words, ...(first ? { first: true } : {}) };
}

/** Most messages a recall question brings back. */
const MAX_ABOUT = 5;

/**
 * The earlier messages a recall question asks for, oldest first: those of the
 * asked-about speaker holding at least half of the topic's words (rounded
 * up), or their latest ones when it names no topic (and when the words of a
 * question without one, "what places did I ask about?", are in none); the
 * first one alone for "my first message". Other recall questions are left
 * out.
 */
export function recallAbout(
  question: RecallQuestion,
  context: Record<string, unknown>,
): StoredMessage[] {
  const seen = new Set<string>();
  const spoken = [...messagesIn(context.recentMessages), ...messagesIn(context.semanticMatches)]
    .filter((said) => {
      if (seen.has(said.id) || !question.roles.includes(said.role)) return false;
      seen.add(said.id);
      return !recallQuestion(said.content);
    })
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const about = question.words.length === 0 ? spoken : spoken.filter((said) => {
    const words = new Set(contentWords(said.content));
    const shared = question.words.filter((word) => words.has(word)).length;
    return shared >= Math.ceil(question.words.length / 2);
  });
  const found = about.length === 0 && question.topic === undefined ? spoken : about;
  return question.first ? found.slice(0, 1) : found.slice(-MAX_ABOUT);
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
