/**
 * Chat shorthand spelled out, so the offline planner's grammar reads "pls
 * delete this convo" and "what do u know about me" as it reads the words in
 * full. Only whole words are replaced, and only shorthand that means nothing
 * else in a chat message.
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
  todays: "today's",
  timezone: "time zone",
  timezones: "time zones",
  dont: "don't",
  cant: "can't",
  didnt: "didn't",
  gm: "good morning",
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
};

/** A word on its own: not part of "U.S." or "u'll". */
const WORD = /(?<![\p{L}\p{N}.'’])[\p{L}\p{N}]+(?![\p{L}\p{N}'’]|\.\p{L})/gu;

/** The text with chat shorthand spelled out ("pls forget ur notes" → "please forget your notes"). */
export function spelledOut(text: string): string {
  return text.replace(WORD, (word) => SHORTHAND[word.toLowerCase()] ?? word);
}
