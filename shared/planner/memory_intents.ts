/**
 * What the offline planner understands about memory, in English, when those
 * tools are offered:
 * - `remember` for a fact the message asks to keep, before or after the ask:
 *   "remember that …", "please keep in mind: …", "don't forget …",
 *   "for future reference, …", "…, remember that", "… — note this" (a bare
 *   "remember that" keeps the user's previous message);
 * - `forget_session` for deleting the current conversation: "delete this
 *   chat", "erase our conversation", "forget everything we talked about";
 * - `forget` with everything for clearing the whole memory: "clear my
 *   memory", "wipe everything you remember about me", "forget all about me";
 * - `forget` for the rest of "forget …", "stop remembering …", "remove …
 *   from your memory", "delete the one about …";
 * - after a fact was just kept (`amendedFact`), a correction ("actually it's
 *   blue": `forget` it, `remember` the new one), another value ("and
 *   mushrooms too") or another fact ("and that her office is on floor 3").
 * "Remember to …" is a reminder, not a fact, and questions ("do you
 * remember …") are not asks: both are left to the ranking of tools.
 */
import type { PlannedAction } from "../contracts.ts";
import type { PlannerTool } from "../ports.ts";
import { asksWhatIsRemembered } from "../tools/recall.ts";
import { withoutLeadingPleasantries, withoutPleasantries } from "./request_reading.ts";
import { NUMBER_WORDS } from "../memory/working_memory.ts";
import { contentWords } from "../text/words.ts";
import { stemEnglish } from "../text/english_stemmer.ts";

/** The tools this grammar plans; the ranking of tools leaves them alone. */
export const MEMORY_INTENT_TOOLS: readonly string[] = ["remember", "forget", "forget_session"];

const OPENING = String
  .raw`(?:(?:please|pls|kindly|ok(?:ay)?|also|and|then|so|just|now|hey|can you|could you|would you|will you|can we|could we|shall we|i want(?: that)? you(?: to)?|i(?:'d| would) like you to|i need you(?: to)?|(?:let'?s\s+|i(?: want| need| would like|'d like) to\s+)?(?:start|begin) (?:fresh|over|again|anew|from scratch|from zero)(?: from (?:scratch|zero))?|(?:a )?clean slate|actually|(?:i\s+)?changed my mind|you can|from now on|going forward|at least|instead|maybe|perhaps|still|wait|oops|hmm|oh|sorry)[\s,]+)*`;
/** What a fact must not open with: a reminder ("to …") or a question ("when we …"). */
const NOT_A_FACT = String.raw`(?!(?:to|when|how|what|where|why|who|whether|if|me|your)\b)`;
const KEEP_VERB = String
  .raw`(?:remember|memori[sz]e|keep in mind|note|(?:make|keep|take) a (?:mental )?note(?: of)?|take note(?: of)?|(?:don'?t|do not|never) forget)`;
/** A fact about the writer, after a note with no "that": "note down my …" ("write down the steps" asks for text). */
const ABOUT_WRITER = String.raw`(?=\s+(?:my|our|i|i'm|i've|i'd|we|we're)\b)`;
/** A fact after "a note": "make a note my sister's …", "save a note — the spare key …". */
const AFTER_NOTE = String.raw`(?=\s+(?:my|our|i|i'm|i've|i'd|we|we're|the)\b)`;
/**
 * Notes with no "that": "jot down milk and eggs", "note down my locker code:
 * 4471", "make a note my sister's birthday is …", "keep note: …", "save a
 * note — …", "keep track of the fact that …", "remember to note my …".
 */
const NOTE_DOWN = String
  .raw`(?:jot down\s*:?(?!\s+(?:a|an|some|me|us)\b)|(?:write|note|put|take) down\s*:?${ABOUT_WRITER}` +
  String
    .raw`|(?:make|keep|take|save|add|leave|write) (?:a |an |this )?(?:mental |quick |short )?note(?: that| of)?\s*[:,–—-]?${AFTER_NOTE}` +
  String
    .raw`|note(?=\s+(?:my|our)\s+[^.?!]*?\b(?:is|are|was|were)\b)|keep track of the fact(?: that)?|keep track (?:of )?that|keep on file(?: that)?|remember to (?:note|write down|jot down)(?: that)?|keep in mind${ABOUT_WRITER}|(?:you (?:must|should|need to|have to) )?remember for me(?: that)?)`;
/**
 * Other ways to keep a fact: "jot down that …", "save that my car is blue"
 * (before a clause about the writer; "save that file" is no fact), "add to
 * your memory that …", "store this fact: …", "write this down: …", "jot
 * this: …", "log that I …" ("log that error" is no fact).
 */
const KEEP_NEW = String
  .raw`(?:(?:write|jot|note|put) down that|${NOTE_DOWN}|(?:save|store|add to (?:your )?memory) that(?=\s+(?:my|i|i'm|i've|i'd|we|we're|our)\b)|(?:save|store|remember|note|keep) (?:this|the|a) fact\s*:?|(?:write|jot|note) (?:this|that|it) down\s*:|(?:jot|log|record) (?:this|that|it)(?: down)?\s*:|(?:log|record) that${ABOUT_WRITER}|add (?:this|that) to (?:your )?memory\s*:)`;
/** After a fact, "save that" and "store this" ask to keep it too; before one they may be about a file. */
const KEEP_AFTER = String
  .raw`(?:${KEEP_VERB}|save|store|(?:don'?t|do not|never) lose|hold on ?to|(?<=(?:please|pls|kindly)\s+)keep|(?<=(?:please|pls|kindly)\s+)to\s+(?:remember|note|keep))`;

const REMEMBER_BEFORE = new RegExp(
  String
    .raw`^\s*${OPENING}(?:${KEEP_VERB}(?:\s+(?:that|this)\s*:|\s+that|\s+this|\s*:)|(?:save|store|keep|note) (?:this|that)(?: about me| for me)?\s*:|note (?:please|pls)\s*:|keep in (?:your\s+)?memory\s*:|${KEEP_NEW}|remember|memori[sz]e|(?:(?:make|keep|take) a (?:mental )?note|take note) of|(?:don'?t|do not|never) forget|(?:(?:a )?note )?for (?:future reference|the record|later)\s*[,:]|note for later(?=\s+(?:my|our|i|i'm|we)\b))\s+${NOT_A_FACT}(.+?)[\s.!?]*$`,
  "is",
);
/** What was said, pointed at: "that", "this info", "it". */
const POINTER = String.raw`(?:that|this|it)(?:\s+(?:info|information|fact|detail|bit|one))?`;
const REMEMBER_AFTER = new RegExp(
  String
    .raw`^\s*(.+?)(?<!\b(?:don'?t|do not|never|not|no need to|i|we|you|they|he|she|should|must|will|would|can|could|might|may|shall|always|also|just|really|from|until|till|since|to))[\s,.;:!–—-]+${OPENING}(?:${KEEP_AFTER}\s+${POINTER}|keep ${POINTER} in (?:mind|(?:your\s+)?memory)|(?:save|store|put|add) ${POINTER} (?:in|to) (?:your\s+)?memory|(?:jot|write|note|put) ${POINTER} down|keep ${POINTER} on (?:file|record)|file ${POINTER} away(?: somewhere)?|(?:don'?t|do not|never) let ${POINTER} slip|keep ${POINTER}(?=[\s.!?]*$)|commit ${POINTER} to (?:your\s+)?memory|hang on ?to ${POINTER}|(?<=(?:please|pls|kindly)\s+)(?:don'?t|do not) forget|(?<=(?:please|pls|kindly)\s+)(?:remember|note)(?!\s+(?:to|when|how|what|where|why|who|whether|if|me)\b)|(?<=(?:please|pls|kindly)\s+)remember me(?=[\s.!?]*$))(?:\s+(?:somewhere|away|safe|for (?:me|later|next time|the future)))?(?:[\s,]+please)?[\s.!?]*$`,
  "is",
);
const REMEMBER_POINTER = new RegExp(
  String
    .raw`^\s*${OPENING}(?:${KEEP_AFTER}\s+${POINTER}|keep ${POINTER} in mind)(?:\s+(?:too|as well|also))?(?:[\s,]+please)?[\s.!]*$`,
  "i",
);
/** What says no fact: "can you remember things?", "remember stuff". */
const NO_FACT =
  /^(?:(?:things?|stuff|anything|everything|something|all of (?:it|that|this|them)|it|that|this|these|those|them|all|too|also|as well|a lot|lots|more|for me|please|again|now)[\s,]*)+[?.!]*$/i;

const WIPE_VERB = String
  .raw`(?:forget|delete|erase|clear|wipe|remove|drop|discard|destroy|purge|trash|scrap|bin|nuke|scrub|toss|shred|ditch|get rid of|throw (?:away|out)|wipe out|clear out|clean out)`;
/** What may follow a request to delete the conversation. */
const SESSION_END = String
  .raw`[\s,.!?]*(?:$|,|please|now|for good|completely|entirely|permanently|right away|out|clean|for me|(?:from )?today|(?:from|off) (?:orbit|existence|(?:your|the) (?:servers?|memory|database|system|records))|from (?:this|the|our) (?:session|chat|conversation|thread)|(?:remove|delete|erase|wipe|clear) it\b|and (?:everything|all) (?:in|of) it|and start (?:fresh|over|again|anew)|i m done|i'm done|but (?:keep|not)\b)`;
/** The conversation itself: "this chat", "our whole discussion", "the entire thread". */
const THIS_CHAT = String
  .raw`(?:(?:this|the|our|the current|the present|this whole|the whole|our whole|this entire|the entire|our entire)\s+)?(?:session|conversation|convo|chat|thread|discussion|back and forth|exchange|chat history|chat log|chat session|conversation history|conversation log|history)`;
const FORGET_SESSION = new RegExp(
  String
    .raw`^\s*${OPENING}(?:(?:i(?: want| need| would like|'d like) to\s+)?${WIPE_VERB}\s+(?:all of\s+|everything (?:in|from)\s+|(?:all|every) traces? of\s+|(?:all (?:the )?|every |each )messages? (?:of ours )?(?:in|of|from)\s+|all\s+)?${THIS_CHAT}(?=${SESSION_END})|forget (?:that )?we (?:ever )?(?:talked|spoke|chatted)|i(?: want| need| would like|'d like)(?: for)? ${THIS_CHAT} (?:to be )?(?:deleted|erased|gone|cleared|wiped|removed|binned|trashed)(?=${SESSION_END})|make (?:this|the|our) (?:session|conversation|chat|thread) (?:go away|disappear|vanish)(?=${SESSION_END})|(?:forget|delete|erase|wipe|wipe out|clear|clear out|scrub|get rid of|remove) (?:everything|all|what) (?:that\s+)?we(?:'ve| have)? (?:said|talked about|discussed|covered|typed|wrote)(?:\s+(?:here|in here|so far|in this (?:chat|conversation)))?)\b`,
  "i",
);
/** "forget that", pointing at the fact the message before asked to keep. */
const FORGET_POINTER = new RegExp(
  String
    .raw`^\s*(?:(?:no|nah|nope|scratch that|on second thought)[\s,]+)*${OPENING}(?:forget (?:that|this)|(?:don'?t|do not|no need to)\s+(?:keep|remember|save|store)\s+(?:that|this|it))(?:[\s,]+please)?[\s.!]*$`,
  "i",
);
const NEVER_MIND = /^\s*(?:forget (?:about )?it|never ?mind)\b/i;
/** What the memory did: "you know", "you've stored", "you remember". */
const YOU_KEPT = String
  .raw`(?:that\s+)?you(?:'ve| have)?\s+(?:know|remember(?:ed)?|kept|stored|saved|learned|learnt|noted)`;
/**
 * "Clear my memory", "erase everything you know about me", "forget all about me",
 * "forget everything", "forget what you know about me", "delete all my saved facts" (not
 * "forget it all": that says "drop it" as often).
 */
const CLEAR_MEMORY = new RegExp(
  String.raw`^\s*${OPENING}(?:` +
    String
      .raw`(?:${WIPE_VERB}|reset|empty)\s+(?:all(?: of)?\s+|everything (?:in|from)\s+)?(?:(?:your|my)\s+)?(?:whole\s+|entire\s+)?(?:working\s+)?memor(?:y|ies)(?:\s+clean)?(?:\s+(?:about|of|on) me)?` +
    String.raw`|${WIPE_VERB}\s+(?:everything|all)(?:\s+${YOU_KEPT})?\s+about me` +
    String.raw`|forget\s+everything` +
    // "make yourself forget all my details, the lot"
    String
      .raw`|make yourself forget\s+(?:all(?: of)?\s+)?(?:my|the)\s+(?:facts|details|info|information|stuff)(?:[\s,]+(?:the lot|all of it))?` +
    // "clear out all the personal stuff you saved on me, all of it"
    String
      .raw`|${WIPE_VERB}\s+(?:all\s+)?(?:the\s+)?(?:personal\s+)?(?:stuff|things|facts|details|info|information)\s+(?:that\s+)?you(?:'ve| have)?\s+(?:saved|stored|kept|noted|have|got|remember|know)\s+(?:about|on)\s+me(?:[\s,]+all of it)?` +
    // "forget everything I told you", "stop remembering things about me"
    String
      .raw`|${WIPE_VERB}\s+(?:everything|all(?: the things)?|all of it)\s+(?:that\s+)?i(?:'ve| have)?\s+(?:told|gave|taught|shared with)\s+you` +
    String.raw`|stop remembering\s+(?:things|anything|stuff|everything)(?:\s+about me)?` +
    String
      .raw`|${WIPE_VERB}\s+(?:all\s+|every(?:\s+single)?\s+)?(?:the\s+)?(?:facts?|details?|info|information)\s+you(?:'ve| have)?\s+(?:have|got|keep|hold|stored|saved|kept)(?:\s+(?:about|on) me)?` +
    String
      .raw`|${WIPE_VERB}\s+(?:everything|all|what|whatever)\s+${YOU_KEPT}(?:\s+(?:about|on) me)?` +
    String
      .raw`|${WIPE_VERB}\s+(?:(?:all(?: of)?|every one of) (?:my|the)|my)\s+(?:saved\s+|stored\s+|remembered\s+)?(?:facts|details|memories|info|information)(?:\s+(?:about me|${YOU_KEPT}))?(?:\s+(?:from|in|out of)\s+(?:your\s+|my\s+|the\s+)?memory)?` +
    String
      .raw`)(?:[\s,]+(?:please|now|for now|for good|completely|entirely|permanently))*[\s.!?]*$`,
  "i",
);
/** "Forget all of it", "delete them all": all of what the reply before listed, when it listed the memory. */
const ALL_OF_IT = new RegExp(
  String
    .raw`^\s*${OPENING}${WIPE_VERB}\s+(?:all of (?:it|that|them|those)|it all|all (?:that|those|of those)|them all|every one of them|everything)(?:[\s,]+(?:please|now))*[\s.!]*$`,
  "i",
);
/** What names a remembered item by its topic: "the thing about peanuts", "the fact that …". */
const ABOUT_IT = String
  .raw`(?:the|that)\s+(?:thing|bit|stuff|part|fact|info|note|detail|one)s?\s+(?:about|regarding|on|that)`;
const FORGET = new RegExp(
  String
    .raw`^\s*${OPENING}(?:forget|stop remembering|unlearn)(?:\s+(?:that\s+)?i (?:said|told you|mentioned)(?:\s+that)?|\s+that|\s+about|\s+what i (?:said|told you) about|\s+(?:everything|anything|all|what|whatever)(?:\s+${YOU_KEPT})?\s+(?:about|regarding)|\s+${ABOUT_IT}|\s*:)?\s+(.+?)(?:\s+now)?[\s.!]*$`,
  "is",
);
const REMOVE_FROM_MEMORY = new RegExp(
  String
    .raw`^\s*${OPENING}(?:(?:delete|erase|remove|drop)\s+(.+?)\s+from (?:your |my )?memory|(?:delete|erase|remove|drop)\s+${ABOUT_IT}\s+(.+?))[\s.!]*$`,
  "is",
);

/** "delete that apartment number": a kept fact named without "memory" ({@link keptNamed}). */
const DELETE_KEPT = new RegExp(
  String
    .raw`^\s*${OPENING}(?:delete|erase|remove|drop|scrap|scratch|discard|clear|get rid of|no need to (?:keep|remember)|stop (?:keeping|remembering))\s+(?:that|the|my)\s+(.+?)(?:\s+(?:from|off|out of)\s+(?:your|my|the)\s+(?:notes|memory|list))?(?:\s+(?:now|anymore|any more|please))*[\s.!]*$`,
  "is",
);

/**
 * The match when every word it names is in one kept fact ("delete the file"
 * names none), a filler such as "stuff" left out; a last word such as
 * "number" or "code" names the number a fact of the thing holds.
 */
function keptNamed(
  match: RegExpExecArray | null,
  memory: readonly string[],
): RegExpExecArray | null {
  // Words by their stems: "the locker numbers" names "my locker number is 12".
  const stems = (text: string) => contentWords(text).map(stemEnglish);
  const words = match ? stems(match[1].replace(FILLER_AFTER, "")) : [];
  const numbered = words.length > 1 && NUMBER_WORDS.has(words.at(-1)!);
  const named = numbered ? words.slice(0, -1) : words;
  if (named.length === 0) return null;
  const holds = (fact: string) => {
    const kept = stems(fact);
    return named.every((word) => kept.includes(word)) && (!numbered || /\d/.test(fact));
  };
  return memory.some(holds) ? match : null;
}

/** Words after a thing that only say it is one: "the locker thing", "the sister stuff". */
const FILLER_AFTER = /\s+(?:thing|stuff|bit|business|info|one|fact|note)$/i;

/** Where a message may go on to another ask: a comma, a sentence end, or "and"/"then". */
const NEXT_PART =
  /(?:\s*[,;]\s*(?:and\s+|then\s+|also\s+)?|[.!?]\s+|\s+and\s+(?:then\s+)?|\s+then\s+)/g;

/**
 * The places a memory ask may end and another ask begin ("remember that my
 * sister lives in Perth, and tell me the time there"), first to last: each
 * the part before and the rest. Whether the rest is an ask of its own is the
 * caller's to judge (a fact holds verbs too: "my kids play and read a lot").
 */
export function memoryAskEnds(message: string): { ask: string; rest: string }[] {
  const ends: { ask: string; rest: string }[] = [];
  for (const match of message.matchAll(NEXT_PART)) {
    if (ends.length >= MAX_ASK_ENDS) break;
    const rest = message.slice(match.index + match[0].length);
    if (match.index > 0 && /\p{L}/u.test(rest)) {
      ends.push({ ask: message.slice(0, match.index), rest });
    }
  }
  return ends;
}

/**
 * Most places a memory ask is looked for an end at: a fact is a sentence or
 * two, and each place tried reads the rest of the message.
 */
const MAX_ASK_ENDS = 12;

/**
 * The memory step `message` asks for, if it asks for one the tools offer.
 * `previous` is the user's message before it, kept by a bare "remember that";
 * `memory` the kept facts, which "delete that <thing>" may name.
 */
export function memoryIntent(
  written: string,
  tools: readonly PlannerTool[],
  { previous, memory = [] }: { previous?: string; memory?: readonly string[] } = {},
): PlannedAction | undefined {
  const offered = (name: string) => tools.some((tool) => tool.name === name);
  // "thanks! remember that I like Rome", "forget everything about me. Bye!"
  const message = withoutPleasantries(
    withoutLeadingPleasantries(written.replaceAll("\u2019", "'")),
  );
  if (FORGET_SESSION.test(message)) {
    return offered("forget_session") ? { tool: "forget_session", args: {} } : undefined;
  }
  const fact = withSubject(factToKeep(message, previous), previous);
  if (fact !== undefined) {
    return offered("remember") ? { tool: "remember", args: { fact: clip(fact) } } : undefined;
  }
  // "remember that I like tea" then "forget that": the fact just kept.
  const kept = FORGET_POINTER.test(message) && previous ? keptBy(previous) : undefined;
  if (kept !== undefined) {
    return offered("forget") ? { tool: "forget", args: { what: clip(kept) } } : undefined;
  }
  if (NEVER_MIND.test(message) || /^\s*(?:don'?t|do not|never) forget\b/i.test(message)) {
    return undefined;
  }
  // "what do you remember about me?" then "forget all of it": all of what the reply listed.
  const clears = CLEAR_MEMORY.test(message) ||
    ALL_OF_IT.test(message) && previous !== undefined && asksWhatIsRemembered(previous);
  if (clears) {
    return offered("forget") ? { tool: "forget", args: { everything: true } } : undefined;
  }
  const removed = REMOVE_FROM_MEMORY.exec(message) ?? keptNamed(DELETE_KEPT.exec(message), memory);
  // "forget where I work": what it names, not how it asks; "the locker thing": the locker.
  const what = (removed ? removed[1] ?? removed[2] : FORGET.exec(message)?.[1])
    ?.replace(/^(?:where|what|when|who|how|which)\s+(?=\S)/i, "")
    .replace(FILLER_AFTER, "");
  return what && !NO_FACT.test(what.trim()) && offered("forget")
    ? { tool: "forget", args: { what: clip(what) } }
    : undefined;
}

/**
 * The steps for a message that amends the fact the message before asked to
 * keep: "actually it's blue" after "remember my favourite colour is green"
 * forgets it and keeps "my favourite colour is blue"; "and mushrooms too"
 * after "remember I hate cilantro" keeps "I hate mushrooms" as well.
 * Undefined for any other message.
 */
export function amendedFact(
  written: string,
  tools: readonly PlannerTool[],
  previous: string | undefined,
): PlannedAction[] | undefined {
  if (previous === undefined) return undefined;
  const message = written.replaceAll("\u2019", "'");
  const kept = keptBy(previous);
  // "and that her office is on floor 3" after any ask about a fact.
  const another = ADDS_FACT.exec(message)?.[1];
  const afterFact = kept !== undefined || CORRECTS_FACT.test(previous) ||
    ADDS_TO_FACT.test(previous);
  if (another !== undefined && afterFact && tools.some((tool) => tool.name === "remember")) {
    return [{ tool: "remember", args: { fact: clip(another) } }];
  }
  const head = kept === undefined ? undefined : factHead(kept);
  if (kept === undefined || head === undefined) return undefined;
  const corrected = CORRECTS_FACT.exec(message)?.[1];
  const adding = corrected === undefined ? ADDS_TO_FACT.exec(message) : null;
  // "I'm vegetarian actually": the value without the word that marks it as one.
  const value = (corrected ?? adding?.[1] ?? adding?.[2])
    ?.replace(/[\s,]+(?:actually|instead|then|now)$/i, "");
  if (value === undefined || value.split(/\s+/).length > 4 || NO_FACT.test(value)) return undefined;
  // "no problem", "actually, thanks", "and you?", "and the time there": no value.
  if (NOT_A_VALUE.test(value)) return undefined;
  // "no wait, I work at Globex": the fact said whole, of the same subject ("my bad" is none).
  const whole = /^(?:i|i'm|my|we|we're|our)\b/i.test(value);
  const subject = head.split(/\s+/).slice(0, 2).join(" ").toLowerCase();
  if (whole && !value.toLowerCase().startsWith(`${subject} `)) return undefined;
  const offered = (name: string) => tools.some((tool) => tool.name === name);
  if (!offered("remember") || (corrected !== undefined && !offered("forget"))) return undefined;
  const keep = { tool: "remember", args: { fact: clip(whole ? value : `${head} ${value}`) } };
  if (corrected === undefined) return [keep];
  return [{ tool: "forget", args: { what: clip(kept) } }, keep];
}

/** Words no value of a fact holds: small talk, pronouns, questions, "there". */
const NOT_A_VALUE =
  /\b(?:me|you|him|her|us|them|it|that|this|so|mine|yours|not sure|sure|problem|worries|thanks|thank|bad|mind|kidding|joking|what|why|how|who|when|where|there|here|then|now|time|ok|okay|cool|great|fine|yes|yeah|yep|please|idea|clue|know|sorry|wait|again)\b/i;

/** "no, it's blue", "actually, make that blue", "sorry I meant blue": the value meant instead. */
const CORRECTS_FACT =
  /^\W*(?:(?:no|nope|nah|sorry|oops|wait|actually|hmm|um|er|oh|ah|correction|my bad|i mean|i meant|make (?:it|that)|change (?:it|that) to)\b[\s,.:!-]*)+(?:(?:it's|it is|its|it was|that's|that is)\s+)?(?:(?:spelled|spelt|written)\s+)?([\p{L}\p{N}][^.!?]*?)[\s.!]*$/iu;
/** "and mushrooms too", "also olives", "mushrooms as well": another value for the same fact. */
const ADDS_TO_FACT =
  /^\W*(?:(?:and|also|plus|oh and)\s+)+(\p{L}[^.!?]*?)(?:\s+(?:too|as well|also))?[\s.!]*$|^\W*(\p{L}[^.!?]*?)\s+(?:too|as well)[\s.!]*$/iu;
/** "and that her office is on floor 3": another fact, said whole. */
const ADDS_FACT = /^\W*(?:and|also|plus)\s+(?:also\s+)?that\s+(\p{L}[^?]*?)[\s.!]*$/iu;

/**
 * A kept fact without its value: "my favourite colour is" for "my favourite
 * colour is green", "I hate" for "I hate cilantro"; undefined when it has no
 * such shape.
 */
function factHead(fact: string): string | undefined {
  // "I live in", "I'm allergic to": a word in lower case that leads to the value ("I'm O
  // negative" has none).
  const verbLed =
    /^((?:i|we)(?:'m|'re|\s+am|\s+are)?\s+(?:(?:really|also|don't|do not|never|always|usually)\s+)?(\p{L}+))\s+\S/iu
      .exec(fact);
  const head = /^(.*?\b(?:is|are|was|were|am)\b)\s+\S/i.exec(fact)?.[1] ??
    (verbLed && /^\p{Ll}{2,}$/u.test(verbLed[2]) ? verbLed[1] : undefined) ??
    // "I'm vegan": the value right after "I'm".
    /^((?:i|we)(?:'m|'re|\s+am|\s+are))\s+\S/i.exec(fact)?.[1];
  if (head === undefined) return undefined;
  // "my dog is called", "I live in": the words before the value that only lead to it.
  const leading = /^\s+((?:(?:called|named|on|in|at|from|to|by|a|an|the)\s+)*)\S/i
    .exec(fact.slice(head.length))?.[1] ?? "";
  return `${head} ${leading}`.replace(/\s+/g, " ").trim();
}

/**
 * "It's ramen" answering "what's my favourite food?": "my favourite food is
 * ramen"; any other fact as it is.
 */
function withSubject(fact: string | undefined, previous: string | undefined): string | undefined {
  const value = fact === undefined ? undefined : /^(?:it's|it is|its|that's|that is)\s+(.+)$/i
    .exec(fact.replaceAll("\u2019", "'"))?.[1];
  const asked = value === undefined || previous === undefined
    ? undefined
    : /^\W*(?:what|which|who|where|when)(?:'s|\s+is|\s+are)\s+(my\s+[^?]+?)\W*$/i
      .exec(previous.replaceAll("\u2019", "'"))?.[1];
  return asked === undefined ? fact : `${asked} is ${value}`;
}

/** The fact a message kept whole: "remember that …", or "and that …" after one. */
function keptBy(message: string): string | undefined {
  return factToKeep(message, undefined) ?? ADDS_FACT.exec(message.replaceAll("\u2019", "'"))?.[1];
}

/** The fact a message asks to keep, if it asks to keep one. */
function factToKeep(message: string, previous: string | undefined): string | undefined {
  // "remember that too": the fact the message before asked to keep, or the message itself.
  if (REMEMBER_POINTER.test(message)) {
    return previous?.trim() ? factToKeep(previous, undefined) ?? previous : undefined;
  }
  const fact = (REMEMBER_AFTER.exec(message)?.[1] ?? REMEMBER_BEFORE.exec(message)?.[1])
    // "fyi I'm vegetarian, keep that in mind", "I go by Jo btw": the aside is no part of the fact.
    ?.replace(ASIDE_BEFORE, "").replace(ASIDE_AFTER, "");
  return fact && /[\p{L}\p{N}]/u.test(fact) && !NO_FACT.test(fact.trim()) ? fact : undefined;
}

const ASIDE_BEFORE =
  /^(?:fyi|btw|by the way|heads up|just so you know|for your info(?:rmation)?)[\s,:–—-]+/i;
const ASIDE_AFTER = /[\s,–—-]+(?:btw|fyi|by the way)$/i;

/** A fact or what to forget as the memory tools take it: one line, at most 500 characters. */
export function clip(text: string): string {
  return text.replace(/\s+/g, " ").trim().replace(/[\s,;:–—-]+$/, "").slice(0, 500);
}
