/**
 * How the offline planner reads a message before choosing tools: its parts
 * (sentences, and clauses joined by "and" or "then" before a verb) and, for
 * each, the verb it opens with when it asks for something ("could you please
 * start a loop" opens with "start"); and what kind of message it is — a
 * request, a question, a statement about the writer ("I am flying to Tokyo"),
 * a greeting, or a fragment ("time in Tokyo"). Only a request can plan a
 * write.
 */
import { stem, tokenize } from "../text/words.ts";
import {
  impliedWords,
  isKnownVerb,
  isPersonWord,
  isReadVerb,
  withoutOpening,
  withPlainVerbs,
} from "./action_words.ts";

/** One part of a message. */
export interface Clause {
  /** Its words (lower case), the polite opening removed. */
  words: string[];
  /** The verb it opens with (stemmed) when it asks for something. */
  verb?: string;
}

/** What a message is, for planning. */
export type MessageKind = "request" | "question" | "statement" | "greeting" | "fragment";

/** A message as the offline planner reads it. */
export interface MessageReading {
  kind: MessageKind;
  clauses: Clause[];
}

const QUESTION_WORDS = new Set(
  ("what whats who whom whose where when which why how do does did is are was were can could " +
    "would will should shall may might am have has").split(" "),
);
const WH_WORDS = new Set("what whats who where when why how".split(" "));
const ASKING_NEXT = new Set(
  "is are s do does did can could will would time day date hour".split(" "),
);

/**
 * Whether the text asks again what was just asked, of something else: "what
 * about Lima?", "and in Oslo?", "how about tomorrow", "same for Rome".
 */
export function followsUp(written: string): boolean {
  // "Great, thanks. And in Paris?": what follows the thanks.
  const text = withoutLeadingPleasantries(written);
  const words = tokenize(text);
  // "what about my friend Jordan?" asks about a person, not a place.
  if (words.length > 12 || words.some(isPersonWord)) return false;
  // Each sentence follows up: "and in Paris? And in Rome?"
  const sentences = (text.match(/[^.?!]+[.?!]*/g) ?? []).filter((sentence) => sentence.trim());
  // "… And in Lima? Bye!": a farewell after it.
  while (sentences.length > 1 && isGreeting(tokenize(sentences.at(-1)!))) sentences.pop();
  return sentences.length > 0 && sentences.every((sentence) => {
    const length = tokenize(sentence).length;
    return length <= 8 && FOLLOW_UPS.some((pattern) => pattern.test(sentence)) ||
      // "and in Lima?", "And Tokyo?": a question of a few words (not "And Paris is lovely").
      (length <= 6 && AND_VALUE.test(sentence) && /(?:\?|\bplease\W*)$/i.test(sentence.trim())) ||
      // "and in rome", "ok and london": as short, any case, when it names nothing but a value
      // (two words after "and", or three with a question mark: not "And Jordan says hi").
      (AND_SHORT.test(sentence) && valueWords(sentence) <= (sentence.includes("?") ? 3 : 2) &&
        !tokenize(sentence).some((word) => NOT_A_VALUE.has(word))) ||
      corrects(sentence);
  });
}

/** "wait, I meant kyoto", "no, Austin Texas", "sorry, in Lima": the value the last question should have had. */
const CORRECTION =
  /^\W*((?:(?:no|nope|nah|sorry|oops|wait|actually|ah|oh|hmm)\W+)+(?:i\s+meant?\s+)?|(?:i\s+meant?\s+))(?:the\s+one\s+)?(?:in\s+|for\s+)?(\p{L}[\p{L}\s'.-]*?)\W*$/iu;
/** "moscow i mean", "the one in Alabama": the value first, or the one of several named by where. */
const CORRECTION_AFTER =
  /^\W*(?:(?:no|nope|nah|sorry|oh|ah)\W+)*(?:(\p{L}[\p{L}\s'.-]*?)\s+i\s+mean[t]?|the\s+one\s+in\s+(\p{L}[\p{L}\s'.-]*?))\W*$/iu;

function corrects(sentence: string): boolean {
  const after = CORRECTION_AFTER.exec(sentence);
  const value = CORRECTION.exec(sentence)?.[2] ?? after?.[1] ?? after?.[2];
  if (!value) return false;
  const words = tokenize(value);
  return words.length <= 3 && !words.some((word) => NOT_A_VALUE.has(word) || GREETING.has(word));
}

/**
 * Whether the message only names something, in three words or fewer:
 * "toronto specifically", "the UK one", "spec" (an answer to the question the
 * reply asked); not "Paris is nice", "and you?" or "And Jordan says hi" ("and
 * …" is read by {@link followsUp}).
 */
export function namesOnly(message: string, reading: MessageReading): boolean {
  // "a spec one, please": the courtesy is no part of it.
  const words = tokenize(message).join(" ").replace(/\b(?:please|thanks|thank you)\b/g, " ")
    .split(/\s+/).filter(Boolean);
  // "bali?": a fragment asked.
  const fragment = reading.kind === "fragment" || reading.kind === "question" &&
      readMessage(message.replace(/[?\s]+$/, "")).kind === "fragment";
  return fragment && words.length > 0 && words.length <= 3 &&
    words[0] !== "and" && !words.some((word) => NOT_A_VALUE.has(word));
}

/** "again", "do that again", "once more please": the last request as it was. */
export function asksRepeat(written: string): boolean {
  return /^\W*(?:(?:ok|okay|and|so|please|can you|could you)\W+)*(?:(?:do|run|check|try|say) (?:that|it|this) (?:again|once more)|again|once more|one more time|same again|repeat that|come again|refresh)(?:\W+please)?\W*$/i
    .test(withoutLeadingPleasantries(written));
}

const FOLLOW_UPS = [
  /^\W*(?:(?:and|ok|okay|so|hmm|right)\W+)*(?:what|how)\s+about\b/i,
  /^\W*(?:and\s+)?(?:same|likewise)\s+(?:for|in)\b/i,
  // "which one is Rio in?" after a reply naming a place's several zones
  /^\W*(?:(?:and|ok|okay|so)\W+)*which\s+(?:one|zone|time\s+zone|part)\s+(?:is|are|has)\b/i,
  // "denver too?", "and Oslo as well"
  /^\W*(?:and\s+)?(?:\p{L}+\s+){1,3}(?:too|as well)\W*$/iu,
];

/**
 * A comparison with what the reply before answered: "is that ahead of
 * Lisbon?", "is it the same as Bangkok?" ("that" is the earlier answer), one
 * naming both ("ok and between LA and Tokyo?"), or one of the two answers
 * before ("which one is ahead?": "two"); undefined for any other message.
 */
export function comparesWithEarlier(written: string): "that" | "both" | "two" | undefined {
  const text = withoutLeadingPleasantries(written);
  if (tokenize(text).length > 10) return undefined;
  if (COMPARES_THE_TWO.test(text)) return "two";
  if (COMPARES_WITH_THAT.test(text)) return "that";
  return COMPARES_BOTH.test(text) ? "both" : undefined;
}

/**
 * A question about the state of what the reply before named: "is it done?",
 * "what's the threshold on it?", "what's the next step?" ("one"), "are any
 * of them finished?" ("several"); undefined for any other message.
 */
export function asksStateOfEarlier(written: string): "one" | "several" | undefined {
  const text = withoutLeadingPleasantries(written);
  // "this is dragging, has it stalled?": a remark, then the question.
  const remark = /^([^,;:.?!—–]+)[,;:.!—–]+\s*([^,;:.!—–]+?)\W*$/.exec(text);
  const state = stateAsked(text) ??
    (remark && isRemark(remark[1]) ? stateAsked(remark[2]) : undefined);
  if (!state) return undefined;
  return /\b(?:them|they|any|anything|all|either|both|each|those)\b/.test(
      state[1] ?? state[2] ?? state[3] ?? "",
    )
    ? "several"
    : "one";
}

/** The state question the text asks, in twelve words or fewer. */
function stateAsked(text: string): RegExpExecArray | undefined {
  const words = tokenize(text).join(" ");
  return words.split(" ").length > 12 ? undefined : STATE_OF_EARLIER.exec(words) ?? undefined;
}

/** A short remark that asks for nothing: "this is dragging", "feels slow" (not "list them"). */
function isRemark(text: string): boolean {
  const words = tokenize(text);
  return words.length > 0 && words.length <= 8 && !/\d/.test(text) &&
    !(isKnownVerb(words[0]) && !words[0].endsWith("s")) && !WH_WORDS.has(words[0]);
}

const STATE_OF_EARLIER = new RegExp(
  String.raw`^(?:(?:and|so|ok|okay|but|hmm|then)\s+)*(?:` +
    String
      .raw`(?:is|has|are|have|was|did)\s+(it|that|this|that one|this one|this thing|that thing|any of them|any|anything|they|all of them|both of them|either of them|one of them|those)\s+(?:\w+\s+)?(?:done|finished|finish|complete|completed|over|ready|passed|pass|wrapped up|wrap up|wrap it up|(?:reach|reached|cross|crossed|hit) the finish(?: line)?|succeeded|stagnat\w*|plateau\w*|stall\w*|stuck|reached|running|still active|active|going nowhere|going anywhere|(?:hit|reach|reached|clear|cleared|make|made|meet|met|beat|pass|passed) the (?:target|threshold|goal|bar|mark|cut))(?: it)?(?:\s+(?:yet|already|now))?` +
    String
      .raw`|(?:(?:what s|what is|whats)\s+)?(?:the|its)\s+(?:next step|next action|threshold|status|standing|progress|state|target(?: score)?|score|latest score|current score)(?:\s+(?:on|of|for)\s+(it|that|this|that one|this one|them|those|both(?: of them)?|each))?(?:\s+(?:so far|now|right now|at the moment))?(?:\s+after that)?` +
    // "status on both of them?", "progress on each?"
    String
      .raw`|(?:status|progress|state|update|updates)\s+(?:on|of|for)\s+(them|those|both(?: of them)?|each(?: of them)?|all of them)` +
    String
      .raw`|how(?: s| is| does|s) it (?:going|doing|looking|look|coming along)|(?:should|can) (?:i|we) (?:keep going|continue|stop)(?: now)?` +
    // "is it good enough to stop?", "are we done with it?", "what score does it need?"
    String
      .raw`|(?:is it|is that|are we) good enough(?: to stop)?|is (?:that|it|this) enough(?: to (?:finish|stop|wrap) it(?: up)?| to pass)?|(?:so )?are we done(?: here| now)?|how many (?:tries|iterations|rounds|attempts) (?:has it|have i|have we) used(?: so far| up)?|(?:are we|am i) (?:done|finished|through) with (?:it|that|this)|what score (?:do i|does it) need(?: (?:for it|to pass))?` +
    // "where is it at?", "how far along is it?", "how many tries are left on it?"
    String
      .raw`|where (?:s|is) (?:it|that|that one|this one) (?:at(?: (?:now|right now|currently))?|now|right now)|where does (?:it|that one) stand|where are we(?: at)?(?: (?:with|on) (?:it|that|that one|this one))?|how far (?:along )?(?:is it|are we)(?: with it)?` +
    String
      .raw`|how many (?:more )?(?:tries|iterations|rounds|attempts|goes)(?: (?:are|do i|does it)(?: still)?(?: have| get)?)?(?: left| remaining)?(?: (?:on|for|in) (?:it|that|that one|this one))?` +
    // Of a thing named with its type: "how is the spec loop going?", "any progress on the plan loop?".
    String
      .raw`|(?:how s|how is|how are)\s+(?:the|my|our)\s+(?:\w+\s+){0,2}(?:loop|one)\s+(?:going|coming along|doing|looking|holding up|getting on|getting along)` +
    // "the coding loop, how's it going?"
    String
      .raw`|(?:the|my|our)\s+(?:\w+\s+){0,2}(?:loop|one)\s+(?:how s|how is) it (?:going|doing|looking|coming along)` +
    String
      .raw`|any\s+(?:progress|news|update|updates)\s+(?:on|with)\s+(?:(?:the|my|our)\s+(?:\w+\s+){0,2}(?:loop|one)|it|that|this)` +
    String.raw`|where\s+are\s+we\s+(?:with|on)\s+(?:the|my|our)\s+(?:\w+\s+){0,2}(?:loop|one)` +
    String
      .raw`|(?:is|has|did)\s+(?:the|my|our|that|this)\s+(?:\w+\s+){0,3}(?:loop|one)\s+(?:\w+\s+)?(?:done|finished|complete|completed|over|ready|passed|pass|stuck|wrapped up|wrap up|(?:cross|crossed|reach|reached) the finish(?: line)?)(?:\s+(?:yet|already|now))?` +
    String
      .raw`|(?:what|which) (?:type|kind) (?:of loop )?(?:is|was) (it|that|this|that one|this one)` +
    String
      .raw`|what should (?:i|we) do (?:next|now)|what do (?:i|we) do (?:next|now)|now what|what now` +
    // "which iteration am I on?", "what round are we at now?"
    String
      .raw`|(?:which|what) (?:iteration|round|try|attempt|step) (?:am i|are we|is it|is that|s it) (?:on|at|in)(?: (?:now|right now))?` +
    // What it must reach, how many tries it has and has had: "what bar does the spec one have to
    // clear", "what's the max number of iterations it's allowed", "how many rounds have I burned".
    String
      .raw`|what (?:bar|score|number|mark|threshold) (?:does|do|must|should) (?:it|that|this|that one|this one|this thing|that thing|(?:the|my|our) (?:\w+ ){0,2}(?:loop|one)) (?:have to |need to |needs to |got to |gotta )?(?:clear|hit|reach|pass|get|beat|make)(?: (?:to pass|to finish|before it (?:passes|counts as passed)))?` +
    String
      .raw`|what (?:s|is) (?:the|its) max(?:imum)? (?:number of )?(?:iterations|rounds|tries|attempts)(?: (?:it s|it is|is it) allowed)?` +
    String
      .raw`|how many (?:attempts|tries|rounds|iterations) (?:remain|are left|left|does it have left)(?: (?:on|for|in) (?:it|that|this|(?:the|my|our) (?:\w+ ){0,2}(?:loop|one)))?(?: before it (?:gives up|stops|ends|runs out))?` +
    // "what was the last mark I gave it", "are we going in circles here", "progress report please"
    String
      .raw`|what (?:was|s|is) (?:the|my) (?:last|latest) (?:score|mark|rating|grade)(?: (?:i|we) gave (?:it|that|this))?` +
    String
      .raw`|(?:are we|is it) (?:going in circles|getting anywhere|making (?:any )?progress|stuck)(?: here)?` +
    String.raw`|(?:a |an )?(?:progress report|status update)` +
    // "pass mark on the spec thing", "how many more rounds can it take before it gives up"
    String
      .raw`|(?:(?:what s|what is|whats) )?(?:the )?(?:pass mark|passing score|threshold|min(?:imum)? score) (?:on|for|of) (?:it|that|this|(?:the|my|our|this|that) (?:\w+ ){0,2}(?:loop|one|thing))` +
    String
      .raw`|how many (?:more )?(?:rounds|tries|attempts|iterations) can it (?:take|have|get)(?: before it (?:gives up|stops|ends|runs out))?` +
    String
      .raw`|how many (?:rounds|tries|attempts|iterations) (?:have i|have we|has it|did i|did we) (?:burned|burnt|used|had|done|gone)(?: through| up)?` +
    // "is it done or what?", "has it passed or not?"
    // "could I get an update on how the loop is progressing"
    String
      .raw`|(?:(?:could|can) (?:i|we) (?:get|have) )?(?:an? )?(?:update|progress report) on (?:how )?(?:it|that|this|(?:the|my|our) (?:\w+ ){0,2}(?:loop|one))(?: is (?:progressing|going|doing|coming along))?` +
    String.raw`)(?: or (?:what|not|no|stuck|done|not yet))?(?:\s+(?:please|pls|thanks|thx))?\s*$`,
);

/**
 * "what's running?", "do I have anything in progress?", "any refinement stuff
 * going on?": a listing of what is active, as "list active …" with the kind
 * the message names; undefined for any other message ("what's going on?" is
 * small talk).
 */
export function asksWhatRuns(written: string): string | undefined {
  const said = WHAT_RUNS.exec(tokenize(withoutLeadingPleasantries(written)).join(" "));
  // Not a word alone: "running" may be the sport.
  return said && said[0].includes(" ") ? `list active ${said[1] ?? ""}`.trim() : undefined;
}

const WHAT_RUNS = new RegExp(
  String
    .raw`^(?:(?:so|and|ok|okay|hey)\s+)*(?:(?:what s|what is|what are|show me|show|list|is there|are there)\s+)?` +
    String
      .raw`(?:(?:what|everything|all|anything)\s+)?(?:(?:do i have|have i got|i have|i ve got|i got)\s+)?` +
    String
      .raw`(?:got\s+)?(?:any\s+|anything\s+)?(?:(?:my|the)\s+)?(?:(\w+)\s+(?:stuff|things|thingies|ones)\s+|loopy\s+)?` +
    // "everything that's still open"
    String.raw`(?:(?:that|which)\s+(?:s|is|are)\s+)?(?:still\s+)?` +
    String
      .raw`(?:running|in progress|on the go|underway|active|open|(?<=(?:have|got|stuff|things|ones|anything) )going(?: on)?)(?:\s+(?:now|right now|at the moment|for me|on my (?:side|end)))*$`,
);

/** The two answers before compared with each other: "which one is ahead?", "how far apart are they?". */
const COMPARES_THE_TWO =
  /^\W*(?:(?:and|ok|okay|so|but|hmm|right)\W+)*(?:which\s+(?:one|of\s+(?:them|the\s+two)|city|place)\s+(?:is|s|'s)\s+(?:ahead|behind|earlier|later)\b|which\s+(?:one\s+)?is\s+(?:ahead|behind|earlier|later)\b|how\s+(?:far|many\s+(?:hours|hrs))\s+apart\s+are\s+(?:they|those|the\s+two)\b|what(?:'s|\s+is)\s+the\s+(?:time\s+)?difference(?:\s+between\s+(?:them|those|the\s+two))?\W*$)/i;
const COMPARES_WITH_THAT =
  /^\W*(?:(?:and|ok|okay|so|but|hmm)\W+)*(?:(?:is|isn't|isnt|are|was)\s+(?:that|it|this|this one|that one|they)\s+(?:(?:\d+|many|a few|several)\s+hours?\s+)?(?:ahead|behind|earlier|later|the\s+same|same|different)\b|(?:the\s+)?same\s+(?:time\s+|zone\s+)?as\b|how\s+(?:far|many\s+(?:hours|hrs)|much)\s+(?:ahead|behind|earlier|later)\s+(?:of|from|than)\s+[^?]+?\s+(?:is|are)\s+(?:that|it|this|they|there)\W*$|how\s+(?:far|many\s+(?:hours|hrs)|much)\s+(?:ahead|behind|earlier|later)\s+(?:is|are)\s+(?:(?:that|it|this|they|there)\s+(?:of|from|than|compared\s+(?:to|with))\s+|(?!(?:that|it|this|they|there)\b))[^?]+?\W*$)|\b(?:are|is)\s+(?:they|those|these|both|the two)\s+(?:in\s+)?(?:the\s+)?same\b/i;
const COMPARES_BOTH =
  /^\W*(?:(?:and|ok|okay|so|what about|how about)\W+)*(?:between|from)\s+\p{L}[\p{L}\s'.-]*?\s+(?:and|to|vs)\s+\p{L}[\p{L}\s'.-]*?\W*$/iu;
const AND_VALUE = /^\W*(?:and|And|AND)\s+(?:(?:in|for|at)\s+)?(?!I\b)\p{Lu}/u;
const AND_SHORT =
  /^\W*(?:(?:ok|okay|so|hmm|right|cool|thanks|great)\W+)?and\s+(?:(?:in|for|at)\s+)?\p{L}[\p{L}\s'.-]*\??\W*$/iu;
/** How many words follow "and" (and "in", "for" or "at" after it). */
function valueWords(sentence: string): number {
  const words = tokenize(sentence);
  const and = words.indexOf("and");
  const after = words.slice(and + 1);
  return after.length - (["in", "for", "at"].includes(after[0]) ? 1 : 0);
}
/** Words that make "and …" say something rather than name a value: "and so on", "and you?". */
const NOT_A_VALUE = new Set(
  ("so on then you me i it that this is are was were s has have had do does did will would can " +
    "yes no not also too more etc what why how who").split(" "),
);

/**
 * The message without the thanks, greetings or farewells it ends with:
 * "forget everything about me. Good night", "clear my memory, thanks".
 */
export function withoutPleasantries(message: string): string {
  for (let text = message;;) {
    const last = /^(.*?\S)\s*[,.;!?]+\s*([^,.;!?]+?)[\s,.;!?]*$/s.exec(text);
    if (!last || !isPleasantry(last[2])) return text;
    // Pleasantries after one that ends a part are what is said ("my parrot says hello, goodbye";
    // not "clear my memory, thanks, good evening").
    const ending = last[1].split(/[,.;!?]/).at(-1)!;
    if (!isPleasantry(ending) && isPleasantry(ending.split(/[\s:]+/).at(-1)!)) return text;
    text = last[1];
  }
}

/** The text without the thanks or greetings it opens with ("ok, thanks! what about Lima?"). */
export function withoutLeadingPleasantries(text: string): string {
  for (let rest = text;;) {
    const first = /^\s*([^\s,.;!?][^,.;!?]*)[,.;!?]+\s*(\S.*)$/s.exec(rest);
    if (!first || !isGreeting(tokenize(first[1]))) return rest;
    rest = first[2];
  }
}

/**
 * Whether the text only greets, thanks or takes leave: "thanks a lot", "good
 * night"; not "is it night?" (it asks the time).
 */
function isPleasantry(text: string): boolean {
  return isGreeting(tokenize(text)) &&
    !text.split(/[.;!?,\n]/).some((part) => impliedWords(part).length > 0);
}

/** Whether the words greet, thank or take leave, and say nothing else ("thanks a lot"; not "what?"). */
function isGreeting(words: readonly string[]): boolean {
  return words.length > 0 && words.length <= 8 && words.every((word) => GREETING.has(word)) &&
    words.some((word) => !GREETING_FILLER.has(word));
}

/** Whether a part opens as a question does ("what time is it", "where is"), not as a relative clause ("where I met Ana"). */
export function asks(words: readonly string[]): boolean {
  return WH_WORDS.has(words[0]) && ASKING_NEXT.has(words[1]);
}
const FIRST_PERSON = new Set(["i", "im", "ive", "my", "me", "we", "our", "mine"]);
/** Words that make a first-person message ask for something: "I need the time in Lima". */
const WANTING = new Set(["need", "want", "wonder", "wondering", "curious", "know"]);

/**
 * Words that ask for something only when they open a sentence ("new spec
 * loop, please"); within one they are what they usually are: "time in
 * Boston, New York and Chicago" names a city.
 */
const OPENING_ONLY_VERBS = new Set(["new"]);

/** Before "like" (within three words), a wish: "I'd like", "I would really like", "I should like". */
const WISHING = new Set(["d", "would", "should"]);

/** Whether a first-person message asks for something: "I need …", "I'd like …" (not "I like tea"). */
function wants(words: readonly string[]): boolean {
  return words.some((word, i) =>
    WANTING.has(word) ||
    (word === "like" && words.slice(Math.max(0, i - 3), i).some((before) => WISHING.has(before)))
  );
}
/** Greeting words that say nothing alone: "what?", "so what" and "what day is it" are not greetings. */
const GREETING_FILLER = new Set(
  ("much so very a lot all s it what to there have is day weekend today tomorrow that was later " +
    "soon again no work job then nah nope anyway it really bunch ton heaps re im off to bed right " +
    "helped for now talk " +
    // A friend addressed, "ah ok", "oi, anybody home?", "hahaha im dead", "hope your week went well".
    "buddy bro dude pal ah oh anybody anyone home dead catch one ya your kind week you re gotta " +
    "dash hope well far")
    .split(" "),
);
/** Words that greet, thank or take leave: those that say so alone, and the filler beside them. */
const GREETING = new Set([
  ...("hi hello hey thanks thank cheers bye goodbye good morning afternoon evening night ok okay " +
    "great cool yo howdy greetings how are doing going whats up sup nice meet mate lovely see " +
    "helpful perfect awesome excellent brilliant alright wonderful fantastic amazing worries sweet " +
    "yay appreciated appreciate lol haha hehe lmao ta star legend many hiya neat gotcha oi sorted " +
    "funny laters obliged " +
    // Words of other languages every chat knows.
    "merci beaucoup gracias danke grazie obrigado obrigada")
    .split(" "),
  ...GREETING_FILLER,
]);

/** A word that closes a request, after a comma at the sentence's end. */
const CLOSING_WORD = /,\s*((?:please|pls|plz|thanks|thank you|thx|too|as well)\W*)$/i;

/**
 * Reads `message`. `verbs` are the verbs the offered tools are asked by (a
 * clause opening with one of them asks for something even when the lexicon
 * does not know it: "approve invoice 42").
 */
export function readMessage(
  message: string,
  { verbs = new Set() }: { verbs?: ReadonlySet<string> } = {},
): MessageReading {
  const isVerb = (word: string | undefined) =>
    word !== undefined && (isKnownVerb(word) || verbs.has(stem(word))) &&
    !OPENING_ONLY_VERBS.has(word);
  const clauses = message.split(/[.;!?\n]+/).flatMap((sentence) => {
    // Until a clause says more than "ok" or "hi", the sentence has not started.
    let started = false;
    let reading: string | undefined;
    // A request's closing word belongs to it: "one more spec loop, please".
    return sentence.replace(CLOSING_WORD, " $1").split(",").flatMap((part) =>
      splitOnVerbs(withPlainVerbs(tokenize(part)), isVerb)
    ).filter((words) => words.length > 0).map((words): Clause => {
      const rest = withoutOpening(words);
      const opens = isVerb(rest[0]) || (!started && OPENING_ONLY_VERBS.has(rest[0]));
      started ||= !rest.every((word) => GREETING.has(word));
      if (opens) {
        reading = isReadVerb(rest[0]) ? stem(rest[0]) : undefined;
        return { words: rest, verb: stem(rest[0]) };
      }
      // "show me my loops, and the time in Rome": what follows "and" is read too.
      const asksItself = asks(rest) || impliedWords(rest.join(" ")).length > 0;
      if (reading && LISTING_ON.has(words[0]) && !asksItself) {
        return { words: [reading, ...rest], verb: reading };
      }
      return { words: rest };
    });
  });
  const words = tokenize(message);
  let kind: MessageKind;
  if (isPleasantry(message)) {
    kind = "greeting";
  } else if (clauses.some((clause) => clause.verb)) kind = "request";
  else if (
    message.trim().endsWith("?") || QUESTION_WORDS.has(words[0]) ||
    // "I live in Oslo, what time is it in Lima": a part of it asks.
    clauses.some((clause) => asks(clause.words))
  ) kind = "question";
  else if (FIRST_PERSON.has(afterGreeting(message)[0]) && !wants(words)) {
    // "I live in Oslo", "hi, I'm Sam"
    kind = "statement";
  } else kind = "fragment";
  return { kind, clauses };
}

/** Words that say hello (not "good night", "thanks"). */
const HELLO = new Set("hi hello hey howdy yo greetings morning afternoon evening hiya".split(" "));

/** Whether the message opens with a greeting of its own: "hi, I'm Sam", "hello! I live in Oslo". */
export function opensWithGreeting(message: string): boolean {
  return greetingParts(message).greets;
}

/** The words after an opening greeting ("hi, I'm Sam": "i m sam"), or all of them. */
function afterGreeting(message: string): string[] {
  return greetingParts(message).after;
}

function greetingParts(message: string): { greets: boolean; after: string[] } {
  const [first, ...rest] = message.split(/[,.!;]+/).map((part) => tokenize(part))
    .filter((words) => words.length > 0);
  const greets = rest.length > 0 && isGreeting(first) && first.some((word) => HELLO.has(word));
  return { greets, after: greets ? rest.flat() : tokenize(message) };
}

/** Words after a comma that go on listing what a verb of reading asks for: ", and the time". */
const LISTING_ON = new Set(["and", "plus", "also"]);

/** Most words read past "and" for the verb of what follows (its polite opening is shorter). */
const OPENING_REACH = 12;

/** Splits words at "and" / "then" / "also" when a verb follows: "start a loop and record a score of 72". */
function splitOnVerbs(words: string[], isVerb: (word: string) => boolean): string[][] {
  const parts: string[][] = [[]];
  for (let i = 0; i < words.length; i++) {
    const joiner = words[i] === "and" || words[i] === "then" || words[i] === "also";
    // The verb after a polite opening of a few words ("and then could you please start …").
    const next = withoutOpening(words.slice(i + 1, i + 1 + OPENING_REACH))[0];
    if (joiner && parts.at(-1)!.length > 0 && next !== undefined && isVerb(next)) parts.push([]);
    else parts.at(-1)!.push(words[i]);
  }
  return parts;
}
