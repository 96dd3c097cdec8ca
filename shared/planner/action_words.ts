/**
 * The few English word senses the offline planner knows: verbs grouped by
 * the action they ask for ("start", "create" and "initialize" all begin
 * something), nouns that name the same thing ("conversation", "chat",
 * "session"), and the polite openings before a request's verb ("could you
 * please …"). A verb outside every group is its own action, so a tool named
 * `approve_invoice` is still asked for by "approve".
 */
import { stem, STOP_WORDS } from "../text/words.ts";

/** Verbs by the action they ask for; a verb may belong to more than one. */
const ACTIONS: Record<string, string> = {
  create:
    "start begin create initialize initialise init open launch make add new setup kick spin build",
  record: "record log save submit enter score rate grade register post",
  get: "get show fetch retrieve check tell give find look read see display view confirm verify",
  list: "list show display enumerate browse view",
  delete: "delete remove erase clear wipe drop destroy forget purge discard",
  remember: "remember memorize memorise note keep store save",
  update: "update change edit modify set rename replace",
  send: "send email mail message notify text post",
  convert: "convert translate transform calculate compute",
  search: "search find look query lookup",
  cancel: "cancel stop abort end close halt pause suspend",
  archive: "archive unarchive",
  decide: "decide judge evaluate assess",
  run: "run execute trigger call invoke perform",
  pay: "pay buy purchase order charge book",
  approve: "approve accept",
  summarize: "summarize summarise write draft compose",
};

/** Nouns that name the same thing. */
const SAME_THING: readonly string[] = [
  "session conversation chat thread history",
  "loop refinement refining",
  "memory fact",
];

/** A part of the day, a meal's time or a day of the week: "is it lunchtime", "is it Friday". */
const TIME_OF_DAY = String
  .raw`(?:morning|afternoon|evening|night|nighttime|night time|daytime|late|early|dark|midnight|noon|midday|tomorrow|today|yesterday|(?:lunch|dinner|supper|breakfast|tea|bed)\s*time|the weekend|weekend|(?:mon|tues|wednes|thurs|fri|satur|sun)day)`;
/**
 * A time on the clock: "5pm", "11 p.m.", "7:30", "9 o'clock", or an hour
 * after "past", "after", "before", "almost" or "nearly" ("past 6"), or before
 * "in the morning" or "at night"; a bare number is a count ("is it 2 in the
 * list?").
 */
const CLOCK_TIME = String
  .raw`(?:\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\b\.?|[ap]\.|o'?clock)|\d{1,2}:\d{2}|(?:past|after|before|almost|nearly)\s+\d{1,2}|\d{1,2}\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night))`;
/**
 * What may follow the time asked about: the end of the part, when or where
 * ("yet", "in Lima", "there"), or what it is for ("to call …"); not a thing it
 * describes ("is it weekend traffic that …", "is it too late for a refund").
 */
const TIME_ASKED_END = String
  .raw`(?=\s*(?:$|[?!.,;:]|(?:yet|now|already|still|over|there|here|in|at|right now|by now|where|to (?:call|ring|phone|text|message|email|contact|visit|wake|reach|go to bed))\b))`;
/** Where the time asked about is "in the" or "at the" something lower-case: a schedule, not a place. */
const IN_A_THING = /^\s*(?:yet\s+|still\s+|already\s+)?(?:in|at)\s+the\s+\p{Ll}/u;

/**
 * Ways of asking the time without the word, at the start of a part: "what
 * hour is it", "what's the hour", "what year is it", "what's today's date",
 * "what does the clock say", "is it morning (yet)", "is it tomorrow there",
 * "would it still be too late to call …", "is it lunchtime", "is it Friday in
 * …", "is it 5pm yet", "… or is she asleep",
 * "how late is it now", "how many hours ahead is Tokyo", "how many hours is Tokyo ahead of London", "is Berlin ahead of
 * Lisbon", "how far ahead is it from Paris", "is it 10 in Chicago"; not
 * "which clock tower …", "why is it dark …", "is it too late for a refund",
 * "is it Monday in the schedule", "how late is it open", "how many hours did
 * I log", "how far behind is the build". Each with what must not follow its
 * match, if any, and whether it reads names written all in lower case ("is
 * sydney ahead of tokyo", {@link namesCapitalised}).
 */
const ASKS_THE_TIME: readonly { pattern: RegExp; notAfter?: RegExp; lower?: true }[] = [
  {
    pattern:
      /^\W*(?:(?:yo|hey|so|ok|okay|and|um|hmm)\W+)?(?:please\s+)?(?:what|which)\s+(?:hour|o'?clock|year|month|day(?:\s+of\s+the\s+week)?)\s+(?:is\s+it|it\s+is|is\s+(?:it\s+)?now)\b|^\W*what(?:'?s|\s+is)?\s+(?:the\s+)?hour\s+(?:is\s+)?now\b|^\W*(?:(?:yo|hey|so|ok|okay|and|um|hmm)\W+)?(?:in\s+\p{L}+(?:\s+\p{L}+)?,?\s+)?what(?:'s|\s+is)\s+the\s+(?:hour|year|month|clock)\b/iu,
  },
  // Not "what's the date of the meeting": a date asked of something else.
  {
    pattern: /^\W*what(?:'s|\s+is)\s+(?:today'?s|the(?:\s+current)?)\s+date\b/i,
    notAfter: /^\s+(?:of|for|on|when)\b/i,
  },
  { pattern: /^\W*what\b[^.;!?]*\bclocks?\s+(?:say|says|saying|show|shows|showing|read|reads)\b/i },
  {
    pattern: new RegExp(
      String
        .raw`(?:^\W*(?:(?:and|so|but|or)\s+)?|\bor\s+)(?:is|would|will|isn't)\s+it(?:\s+(?:still|already|now))?(?:\s+be)?\s+(?:(?:yet|still|already|now|too|very|quite|pretty|really|almost|nearly|past|after|before|by\s+now)\s+)*(?:${TIME_OF_DAY}|${CLOCK_TIME})(?:\s+or\s+(?:${TIME_OF_DAY}|${CLOCK_TIME}))?${TIME_ASKED_END}`,
      "i",
    ),
    notAfter: IN_A_THING,
  },
  {
    pattern: new RegExp(
      String
        .raw`^\W*(?:(?:and|so|but)\s+)?how\s+(?:(?:late|early)|much\s+(?:later|earlier))(?:\s+is\s+it)?${TIME_ASKED_END}`,
      "i",
    ),
  },
  // A place by its capital: "how many hours ahead is Tokyo", "… behind London is New York",
  // "… earlier is it in Denver", "how far ahead is it from Paris" (not "how far behind is Jenkins").
  {
    pattern:
      /^\W*(?:(?:[Aa]nd|[Ss]o|[Bb]ut)\s+)?[Hh]ow\s+(?:many\s+(?:hours|hrs)\s+(?:ahead|behind|apart|earlier|later)\s+(?:of\s+(?:me|us)\s+)?(?:(?:is|are)\s+(?:it|they)\s+)?(?:(?:is|are|of|than|from|in)\s+)?|far\s+(?:ahead|behind)\s+(?:is\s+it|are\s+they|is\s+\p{Lu}\S*(?:\s+\p{Lu}\S*)?)\s+(?:from|of|than)\s+)\p{Lu}/u,
    lower: true,
  },
  // The place compared with first: "how far behind New York is LA?", "how far ahead of London is
  // Tokyo?" (not "how far behind schedule is it").
  {
    pattern:
      /^\W*(?:(?:[Aa]nd|[Ss]o|[Bb]ut)\s+)?[Hh]ow\s+(?:far|many\s+(?:hours|hrs))\s+(?:ahead|behind)\s+(?:(?:of|from|than)\s+)?\p{Lu}\S*(?:\s+\p{Lu}\S*)?\s+(?:is|are)\s+\p{Lu}/u,
    lower: true,
  },
  // The places first: "how many hours is Tokyo ahead of London", "is Berlin ahead of Lisbon?",
  // "how many hrs ahead is Oslo compared to Lima", "is Oslo ahead or behind Lima?".
  {
    pattern:
      /^\W*(?:(?:[Aa]nd|[Ss]o|[Bb]ut)\s+)?(?:[Hh]ow\s+many\s+(?:hours|hrs)\s+(?:(?:ahead|behind)\s+)?(?:is|are)\s+\p{Lu}\S*(?:\s+\p{Lu}\S*)?\s+(?:compared\s+(?:to|with)|vs\.?|versus)|(?:[Hh]ow\s+many\s+(?:hours|hrs)\s+(?:is|are)|[Ii]s|[Aa]re)\s+\p{Lu}\S*(?:\s+\p{Lu}\S*)?\s+(?:(?:ahead|behind)(?:\s+(?:of|from|than))?|(?:ahead|behind)(?:\s+of)?\s+or\s+(?:ahead|behind)(?:\s+(?:of|from|than))?))\s+\p{Lu}/u,
    lower: true,
  },
  // Both places after "between": "how many hours between Oslo and Lima", "… apart are …".
  {
    pattern:
      /^\W*(?:(?:[Aa]nd|[Ss]o|[Bb]ut)\s+)?(?:[Hh]ow\s+many\s+)?(?:[Hh]ours|[Hh]rs)\s+(?:apart\s+)?(?:(?:is|are)\s+(?:it|there)\s+)?(?:of\s+difference\s+)?between\s+\p{Lu}/u,
    lower: true,
  },
  // Which of two places is ahead: "which is ahead, Oslo or Lima?", "is it later in Athens or
  // Riga?", "what's the difference in time between Rome and Lagos?".
  {
    pattern:
      /^\W*(?:[Ww]hich\s+(?:one\s+|city\s+|place\s+|of\s+them\s+)?is\s+(?:ahead|behind|earlier|later)(?:\s+(?:now|right now))?(?:[,:]?\s+\p{Lu}|,\s*$)|[Ii]s\s+it\s+(?:later|earlier)\s+in\s+\p{Lu}\S*(?:\s+\p{Lu}\S*)?\s+or\s+(?:in\s+)?\p{Lu}|(?:[Ww]hat(?:'s|\s+is)\s+)?(?:[Tt]he\s+)?[Dd]ifference\s+in\s+(?:time|hours)\s+(?:between|from)\s+\p{Lu})/u,
    lower: true,
  },
  // "hour difference between Oslo and Lima", "Oslo is how many hours in front of Lima".
  {
    pattern:
      /^\W*(?:(?:the\s+)?(?:hours?|time)\s+difference\s+(?:between|from)\s+\p{Lu}|\p{Lu}\S*(?:\s+\p{Lu}\S*)?\s+is\s+how\s+(?:(?:many|much)\s+hours|far)\s+(?:ahead|behind|in\s+front)(?:\s+of)?\s+\p{Lu})/u,
    lower: true,
  },
  // "Lima vs Oslo, hours apart?", "Denver vs Rome how many hours apart"
  {
    pattern:
      /^\W*\p{Lu}\S*(?:\s+\p{Lu}\S*)?\s+(?:vs\.?|versus)\s+\p{Lu}\S*(?:\s+\p{Lu}\S*)?[,:;]?\s+(?:(?:how\s+many\s+)?(?:hours|hrs|time)\s+(?:apart|difference|gap)|how\s+far\s+apart)\b/u,
    lower: true,
  },
  // "Mumbai + Dubai clocks side by side"
  {
    pattern:
      /^\W*\p{Lu}\S*(?:\s+\p{Lu}\S*)?\s*(?:\+|&|\band\b|\bvs\.?)\s*\p{Lu}\S*(?:\s+\p{Lu}\S*)?\s+(?:clocks|times|local\s+times)\b/u,
    lower: true,
  },
  // The same question after a comma, its own part: "…, hours apart?"
  { pattern: /^\W*(?:how\s+many\s+)?(?:hours|hrs)\s+apart(?:\s+(?:are\s+they|now))?\W*$/i },
  {
    pattern:
      /^\W*how\s+(?:big|large|wide)\s+is\s+the\s+(?:gap|difference)(?:\s+in\s+(?:hours|time))?\W*$/i,
  },
  // "compare the clock in Mumbai and London"
  {
    pattern:
      /^\W*(?:(?:please|pls|can\s+you|could\s+you)\s+)?compare\s+(?:the\s+)?(?:clocks?|times?|local\s+times?|hours?|time\s+zones?)\s+(?:in|of|for|between|at)\b/i,
  },
  // "what's the gap in hours, Oslo to Lima?"
  {
    pattern:
      /^\W*(?:what(?:'s|\s+is)\s+)?the\s+(?:gap|difference)\s+in\s+(?:hours|time)(?:[,:]?\s+(?:from\s+|between\s+)?\p{Lu}|,\s*$)/u,
    lower: true,
  },
  // A place's clock or hour: "Oslo clock?", "Lima hour right now", "clock in Perth?" (not "rush
  // hour", "happy hour").
  {
    pattern:
      /^\W*(?:(?!(?:[Hh]appy|[Rr]ush|[Ll]unch|[Pp]eak|[Gg]olden|[Oo]ffice|[Zz]ero|[Ww]itching|[Dd]inner|[Mm]agic|[Ff]inal|[Ee]leventh|[Cc]ocktail|[Vv]isiting|[Oo]pening|[Cc]losing|[Pp]ower|[Pp]rime|[Ss]tudy|[Qq]uiet)\s)\p{Lu}\S*(?:\s+\p{Lu}\S*){0,2}\s+(?:clock|hour)\b|(?:[Tt]he\s+)?[Cc]lock\s+(?:in|at)\s+\p{Lu})/u,
    lower: true,
  },
  // Whether someone is asleep or up: "can I call my mum in Perth now or is she asleep".
  {
    pattern:
      /(?:^\W*|\bor\s+)(?:is|are|would|will)\s+(?:she|he|they|everyone|everybody|people)\s+(?:still\s+|already\s+|be\s+)?(?:asleep|awake|sleeping|up\s+yet|in\s+bed)\b/i,
  },
  // "is sydney asleep at the moment": a place's people asleep or up.
  {
    pattern:
      /^\W*(?:[Ii]s|[Aa]re)\s+\p{Lu}\S*(?:\s+\p{Lu}\S*)?\s+(?:still\s+|already\s+)?(?:asleep|awake|sleeping|up\s+yet)\b/u,
    lower: true,
  },
  // A bare hour before a place by its capital: "is it 10 in Chicago?" (not "is it 2 in the list?").
  {
    pattern:
      /^\W*(?:(?:[Aa]nd|[Ss]o|[Bb]ut)\s+)?(?:[Ii]s|[Ww]ould|[Ww]ill)\s+it(?:\s+be)?\s+\d{1,2}(?:\s+(?:already|yet|now))?\s+(?:in|at)\s+\p{Lu}/u,
  },
];

/** Words for a person, whose name may follow: "my friend Jordan", "a client called Chad". */
const PERSON =
  /^(?:friend|friends|colleague|colleagues|coworker|boss|manager|client|customer|sister|brother|mother|father|mom|mum|dad|son|daughter|wife|husband|partner|girlfriend|boyfriend|aunt|uncle|cousin|niece|nephew|grandma|grandpa|neighbour|neighbor|teacher)$/;

/** Whether the word (lower case) stands for a person: "friend", "cousin". */
export function isPersonWord(word: string): boolean {
  return PERSON.test(word);
}

/**
 * Whether the word after `words[0..i)` is a person's name: it follows a word
 * for a person ("my friend Jordan"), or "called"/"named" after one ("a client
 * called Chad"; not "the town called Lima").
 */
export function namesPerson(words: readonly string[], i: number): boolean {
  if (i >= 1 && isPersonWord(words[i - 1])) return true;
  return i >= 2 && /^(?:called|named)$/.test(words[i - 1]) && isPersonWord(words[i - 2]);
}

/**
 * A part written in lower case past its first word (acronyms aside) with its
 * other words capitalised, as a writer who uses capitals would name places:
 * "is sydney ahead of tokyo" as "is Sydney ahead of Tokyo". Any other part
 * as it is.
 */
export function namesCapitalised(part: string): string {
  // Capitals past the first word, but for an acronym ("NYC"): the writer uses them.
  if (/\s\W*\p{Lu}(?!\p{Lu})/u.test(part)) return part;
  return part.replace(
    /(?<!['’])\p{L}+/gu,
    (word) => NOT_NAMES.has(word) ? word : word[0].toUpperCase() + word.slice(1),
  );
}
const NOT_NAMES = new Set([
  ...STOP_WORDS,
  ..."ahead behind hours hrs hour many much how far apart between compared versus vs than later earlier time clock clocks times difference gap front right now here today one city place or not side"
    .split(" "),
]);

/** A word every lower-case pattern of {@link ASKS_THE_TIME} holds. */
const LOWER_READ =
  /\b(?:ahead|behind|front|hours?|hrs|between|later|earlier|clocks?|gap|difference|apart)\b/i;

/** The words a part means without saying them: "time" for "is it evening in Lima?". */
export function impliedWords(written: string): string[] {
  // "…, and what hour is it in Lima?"
  const part = written.replace(/^\W*(?:and|so|but|also|or)\s+/i, "");
  // The lower-case patterns read a part's first words only (a long message is read in parts), and
  // each names a comparison or a clock.
  const named = LOWER_READ.test(part) ? namesCapitalised(part.slice(0, 200)) : undefined;
  const asks = ASKS_THE_TIME.some(({ pattern, notAfter, lower }) => {
    if (lower && named === undefined) return false;
    const text = lower ? named! : part;
    const match = pattern.exec(text);
    return match !== null && !notAfter?.test(text.slice(match.index + match[0].length));
  });
  return asks ? ["time"] : [];
}

let actionsByVerb: Map<string, string[]> | undefined;

/** The actions a verb asks for: its groups, or the verb itself when it is in none. */
function actionsOf(verb: string): string[] {
  actionsByVerb ??= indexWords(ACTIONS);
  return actionsByVerb.get(stem(verb.toLowerCase())) ?? [stem(verb.toLowerCase())];
}

/** Whether the word is a verb the lexicon knows (a request can open with it). */
export function isKnownVerb(word: string): boolean {
  actionsByVerb ??= indexWords(ACTIONS);
  return actionsByVerb.has(stem(word.toLowerCase()));
}

/** Actions that change nothing: reading, and working out or writing up what was read. */
const READ_ACTIONS = new Set(["get", "list", "search", "summarize", "convert"]);

/** Whether the verb changes nothing ("show", "find", "summarize", "calculate"). */
export function isReadVerb(verb: string): boolean {
  return actionsOf(verb).every((action) => READ_ACTIONS.has(action));
}

/** Whether two verbs ask for a common action. */
export function sameAction(a: string, b: string): boolean {
  const of = new Set(actionsOf(a));
  return actionsOf(b).some((action) => of.has(action));
}

/** The stemmed word and the words that name the same thing. */
export function sameThing(word: string): string[] {
  const stemmed = stem(word);
  const group = SAME_THING.find((words) => words.split(" ").map(stem).includes(stemmed));
  return group ? group.split(" ").map(stem) : [stemmed];
}

/**
 * Openings before the verb of a polite or indirect request, removed one after
 * another: "ok, could you please go ahead and start …" opens with "start".
 */
const OPENINGS = [
  "please",
  "pls",
  "kindly",
  "ok",
  "okay",
  "hey",
  "hi",
  "hello",
  "now",
  "also",
  "and",
  "then",
  "so",
  "just",
  "go ahead and",
  "can you",
  "could you",
  "would you",
  "will you",
  "can u",
  "could u",
  "help me",
  "i want you to",
  "i would like you to",
  "i d like you to",
  "i need you to",
  "i want to",
  "i would like to",
  "i d like to",
  "i need to",
  "i wanna",
  "id like to",
  "id love to",
  "id want to",
  "im hoping to",
  "gotta",
  "would be great to",
  "it would be great to",
  "it d be great to",
  "would be nice to",
  "it would be nice to",
  "it d be nice to",
  "got to",
  "i d want to",
  "i would want to",
  "i d love to",
  "i would love to",
  "i m hoping to",
  "i am hoping to",
  "i hope to",
  "hoping to",
  "we want to",
  "we need to",
  "we d like to",
  "we would like to",
  "can we",
  "could we",
  "let s",
  "let us",
  "try to",
].map((opening) => opening.split(" "));

/**
 * Verbs of two or three words, by the one-word verb they mean: "get rid of
 * this chat" asks what "remove this chat" asks.
 */
const PHRASAL_VERBS: readonly [string[], string][] = [
  ["get rid of", "remove"],
  ["throw away", "discard"],
  ["throw out", "discard"],
  ["wipe out", "wipe"],
  ["clear out", "clear"],
  ["clean out", "clear"],
  ["set up", "create"],
  ["fire up", "start"],
  ["spin up", "start"],
  ["start up", "start"],
  ["boot up", "start"],
  ["kick off", "start"],
  ["pull up", "show"],
  ["bring up", "show"],
  ["look up", "find"],
].map(([phrase, verb]) => [phrase.split(" "), verb]);

/**
 * Wishes for a new thing, by the verb they mean: "I want a loop for my spec",
 * "I'd like a new one", "can I get a loop" ask to create one (before "a",
 * "an", "another" or "new" only: "I want the time in Oslo" asks to read).
 */
const WISHES: readonly string[][] = [
  "i want",
  "i need",
  "i would like",
  "i d like",
  "id like",
  "i wanna",
  "we want",
  "we need",
  "we would like",
  "we d like",
  "would love",
  "would like",
  "could use",
  "needs",
  "i d love",
  "i would love",
  "can i get",
  "can i have",
  "could i get",
  "could i have",
].map((wish) => wish.split(" "));
/** Verbs of working on a thing again, and a loop to do it in ({@link withPlainVerbs}). */
const REFINING = new Set(["refine", "iterate", "improve", "polish", "rework", "revise"]);
const IN_A_LOOP = /\b(?:in|with|using|through|via) (?:a|an|another|a new|new) (?:\w+ )?loop\b/;
/** "Get" is a wish when the new thing is to run: "get a loop going" (not "get a time check"). */
const GET_GOING = new Set(["going", "started", "running", "underway"]);
/** Wishes said without who wishes, at the start of a clause only: "need a code loop", "have a …". */
const BARE_WISHES: readonly string[][] = [["need"], ["want"], ["love"], ["have"]];
const NEW_THING = new Set(["a", "an", "another", "new"]);
const OF_THING = new Set(["of", "at", "into", "over", "about"]);
/**
 * A request said as the new thing alone, marked as a request by what ends it:
 * "a fresh code loop please", "one more spec loop, thanks", "and a plan loop
 * too", "a spec loop would be great" ("a spec loop" alone asks nothing).
 */
const THING_ALONE =
  /^(?:a|an|another|one more|new)(?: [a-z]+){1,6}? (?:please|pls|plz|thanks|thank you|thx|too|as well|would be (?:great|nice|good|perfect|ideal|helpful))$/;

/**
 * The wish that opens at `words[i]` before a new thing, unless the thing is
 * one of something ("get a list of my loops", "have a look at it": reads).
 */
function wishAt(
  words: readonly string[],
  i: number,
  atStart: boolean,
): readonly string[] | undefined {
  if (words[i] === "get" && NEW_THING.has(words[i + 1])) {
    if (words.slice(i + 2, i + 6).some((word) => GET_GOING.has(word))) return ["get"];
  }
  const wishes = atStart ? [...WISHES, ...BARE_WISHES] : WISHES;
  return wishes.find((phrase) =>
    phrase.every((word, j) => words[i + j] === word) && NEW_THING.has(words[i + phrase.length]) &&
    !words.slice(i + phrase.length + 1, i + phrase.length + 4).some((word) => OF_THING.has(word))
  );
}

/** The words with each phrasal verb ({@link PHRASAL_VERBS}) as its one-word verb. */
export function withPlainVerbs(words: readonly string[]): string[] {
  const plain: string[] = [];
  // Where the clause starts after its opening: "would be great to have a loop" wishes with "have".
  const start = words.length - withoutOpening(words).length;
  if (THING_ALONE.test(words.slice(start).join(" "))) plain.push("create");
  for (let i = 0; i < words.length; i++) {
    const wish = wishAt(words, i, i === start);
    if (wish) {
      i += wish.length - 1;
      plain.push("create");
      continue;
    }
    // "refine my plan in a loop", "iterate on the spec with a loop": start one for it.
    if (REFINING.has(words[i]) && IN_A_LOOP.test(words.slice(i + 1).join(" "))) {
      plain.push("start");
      continue;
    }
    const match = PHRASAL_VERBS.find(([phrase]) =>
      phrase.every((word, j) => words[i + j] === word)
    );
    if (match) i += match[0].length - 1;
    plain.push(match ? match[1] : words[i]);
  }
  return plain;
}

/** The words of a request without its polite opening (see {@link OPENINGS}). */
export function withoutOpening(words: readonly string[]): string[] {
  let rest = [...words];
  for (let changed = true; changed;) {
    changed = false;
    for (const opening of OPENINGS) {
      if (opening.every((word, i) => rest[i] === word) && rest.length > opening.length) {
        rest = rest.slice(opening.length);
        changed = true;
      }
    }
  }
  return rest;
}

function indexWords(groups: Record<string, string>): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const [action, words] of Object.entries(groups)) {
    for (const word of words.split(" ").map(stem)) {
      index.set(word, [...(index.get(word) ?? []), action]);
    }
  }
  return index;
}
