/**
 * Chat shorthand spelled out, so the offline planner's grammar reads "pls
 * delete this convo" and "what do u know about me" as it reads the words in
 * full, and a few frequent misspellings corrected ("rememeber", "tiem"). Only
 * whole words are replaced, and only ones that mean nothing else in a chat
 * message.
 */

/** Shorthand, lower-case, and the words it stands for. */
const SHORTHAND: Readonly<Record<string, string>> = {
  pls: "please",
  plz: "please",
  pleas: "please",
  u: "you",
  ur: "your",
  thx: "thanks",
  thnx: "thanks",
  thanx: "thanks",
  tx: "thanks",
  ty: "thank you",
  convo: "conversation",
  convos: "conversations",
  msg: "message",
  msgs: "messages",
  whats: "what's",
  hows: "how's",
  thats: "that's",
  atm: "at the moment",
  wat: "what",
  heyo: "hey",
  todays: "today's",
  timezone: "time zone",
  timezones: "time zones",
  dont: "don't",
  youve: "you've",
  youre: "you're",
  youll: "you'll",
  cant: "can't",
  didnt: "didn't",
  gm: "good morning",
  mornin: "morning",
  cya: "see you",
  tmrw: "tomorrow",
  ttyl: "talk to you later",
  tmr: "tomorrow",
  bday: "birthday",
  hrs: "hours",
  gn: "good night",
  gnight: "good night",
  nite: "night",
  hii: "hi",
  hiii: "hi",
  heya: "hey",
  okie: "okay",
  okey: "okay",
  kk: "okay",
  abt: "about",
  rn: "right now",
  b4: "before",
  dis: "this",
  dat: "that",
  n: "and",
};

/** Frequent misspellings of the words requests turn on. */
const TYPOS: Readonly<Record<string, string>> = {
  tiem: "time",
  tme: "time",
  timzone: "time zone",
  waht: "what",
  whta: "what",
  rememeber: "remember",
  remmber: "remember",
  remeber: "remember",
  rember: "remember",
  remembr: "remember",
  foget: "forget",
  forgt: "forget",
  delet: "delete",
  delte: "delete",
  dlete: "delete",
  delette: "delete",
  deleet: "delete",
  memroy: "memory",
  memmory: "memory",
  conversaton: "conversation",
  converstion: "conversation",
  plase: "please",
  pleae: "please",
  scroe: "score",
  sccore: "score",
  scor: "score",
  socre: "score",
};

/** A word on its own: not part of "U.S." or "u'll". */
const WORD = /(?<![\p{L}\p{N}.'’])[\p{L}\p{N}]+(?![\p{L}\p{N}'’]|\.\p{L})/gu;

/** The text with chat shorthand spelled out and misspellings corrected ("pls forget ur notes" → "please forget your notes"). */
export function spelledOut(text: string): string {
  return text.replace(R_U, "are").replace(WORD, (word) => spelling(word) ?? word)
    .replace(R_YOU, "$1are").replace(PLUS, " and ");
}

/** "+" between two words: "and" ("mumbai + dubai clocks"), not in sums ("2 + 2"). */
const PLUS = /(?<=\p{L})\s+\+\s+(?=\p{L})/gu;

/**
 * "r" for "are": before "u" ("which things r u able to do"), or after a question word before
 * "you", "we" or "they" ("how r you"); the language R stays ("I code in R you know").
 */
const R_U = /(?<![\p{L}\p{N}'’.])r(?=\s+u\b)/giu;
const R_YOU = /(^|\b(?:how|what|where|who|why|when)\s+)r(?=\s+(?:you|we|they)\b)/gi;

function spelling(word: string): string | undefined {
  const lower = word.toLowerCase();
  // "heyyy", "sooo": a chat word with its last letter drawn out (not an id: "5093baaa").
  const drawn = lower.replace(/(\p{L})\1{2,}$/u, "$1");
  return SHORTHAND[lower] ?? TYPOS[lower] ?? (DRAWN_OUT.has(drawn) ? drawn : laugh(lower));
}

/** A laugh however long: "hahaha", "lmaooo", "loool", "hehe" ("lol" for all but "haha" and "hehe"). */
function laugh(word: string): string | undefined {
  if (/^(?:ha){2,}h?$|^a?ha(?:ha)+$/.test(word)) return "haha";
  if (/^(?:he){2,}h?$/.test(word)) return "hehe";
  return /^lo{2,}l$|^lmf?ao+$|^rofl$/.test(word) ? "lol" : undefined;
}

/** Chat words whose last letter is drawn out ("heyyy", "noooo", "thxxx"). */
const DRAWN_OUT = new Set(
  "hey hi yo so ok no yes yeah yay nice cool wow lol please pls thanks thx bye hello".split(" "),
);

/**
 * The part of `typed` that `part` of its spelled-out text came from: a fact
 * is kept as the user wrote it ("my son is called U"), though it was read
 * spelled out. `part` itself when it is not in the spelled-out text.
 */
export function asTyped(typed: string, part: string): string {
  // For each character of the spelled-out text, where in `typed` it came from.
  const from: number[] = [];
  let spelled = "";
  let last = 0;
  for (const match of typed.matchAll(WORD)) {
    const replaced = spelling(match[0]);
    for (let i = last; i < match.index; i++) from.push(i);
    if (replaced === undefined) {
      for (let i = 0; i < match[0].length; i++) from.push(match.index + i);
    } else for (let i = 0; i < replaced.length; i++) from.push(match.index);
    spelled += typed.slice(last, match.index) + (replaced ?? match[0]);
    last = match.index + match[0].length;
  }
  for (let i = last; i < typed.length; i++) from.push(i);
  spelled += typed.slice(last);
  const at = spelled.indexOf(part);
  if (at < 0 || part === "") return part;
  const end = at + part.length;
  return typed.slice(from[at], end < from.length ? from[end] : typed.length);
}
