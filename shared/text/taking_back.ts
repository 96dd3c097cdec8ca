/**
 * Words that take a request back: "never mind", "forget it", "scratch that".
 * The offline planner plans nothing for such a message, and the reply lists
 * nothing it asked for before taking it back; what follows a first part that
 * takes back ("never mind. remember that …") is read as the request.
 */
import { tokenize } from "./words.ts";

/**
 * What "never mind" may name: "never mind that", and within a part of the
 * message a few words more ("never mind the loop", "never mind what I said
 * about Tokyo").
 */
const NAMED = {
  pointer: String.raw`(?: about)?(?: (?:that|this|it))?`,
  words: String
    .raw`(?: about)?(?: (?:that|this|it)| (?:the|my|your|our|those|these|what i (?:said|asked)(?: about)?) [a-z0-9]+(?: [a-z0-9]+){0,3})?`,
};
/** Words that take back what was asked, whatever stands before them. */
const takingBack = (named: string) =>
  String
    .raw`(?:never ?mind|nvm)${named}|forget (?:about )?it(?: all)?|forget all (?:of )?(?:it|that)|forget (?:that )?i (?:asked|said anything|said that|mentioned it)|scratch that|cancel that|(?:it )?doesn t matter`;
const TAKING_BACK = takingBack(NAMED.words);
/** Words a take-back may open with: "oh, never mind", "actually, scratch that". */
const OPENERS = "ok|okay|oh|ah|hmm|no|actually|sorry|well|wait|just|please";
/** Words before or after them: "oh, never mind", "forget it then". */
const AROUND = {
  before: String.raw`^(?:(?:${OPENERS}|thanks|thank you)\s+)*`,
  after: String.raw`(?:\s+(?:then|please|thanks|thank you|for now|anyway|after all|it s fine))*$`,
};
/** Words that only let a request go: the words above, or a milder "no worries". */
const lettingGo = (takingBack: string) =>
  new RegExp(
    `${AROUND.before}(?:${takingBack}|don t worry(?: about it)?|no worries|it s fine|skip it)${AROUND.after}`,
  );
/** A part that only lets its request go. */
const LETTING_GO = lettingGo(TAKING_BACK);
/** A message that does, across its parts: "oh, never mind, thanks" (not "nvm the score. Time in Apia"). */
const ONLY_LETTING_GO = lettingGo(takingBack(NAMED.pointer));
/** Thanks, which a milder "no worries" only answers. */
const THANKS = /\b(?:thanks|thank you|cheers)\b/;
const TAKEN_BACK_ANYWHERE = new RegExp(`\\b(?:${TAKING_BACK})\\b`);
/** Its last part takes back what came before: "forget my bike. Never mind." */
const TAKEN_BACK = new RegExp(`${AROUND.before}(?:${TAKING_BACK})${AROUND.after}`);

/**
 * What a message that lets its request go does: "drops" it ("never mind",
 * "no worries, forget it", "clear my memory. Actually, never mind"), or
 * "thanks" with a milder "no worries" that takes nothing back ("cheers, don't
 * worry"); undefined when it asks for something ("forget it, what time is it
 * in Oslo?").
 */
export function letsGo(message: string): "drops" | "thanks" | undefined {
  const parts = messageParts(message);
  if (onlyLetsGo(parts)) return thanks(parts) ? "thanks" : "drops";
  const takenBack = parts.length > 1 &&
    (TAKEN_BACK.test(parts.at(-1)!) || parts.every((words) => LETTING_GO.test(words)));
  return takenBack ? "drops" : undefined;
}

/** Whether the message asks for nothing after all ({@link letsGo}'s "drops"). */
export function dropsTheRequest(message: string): boolean {
  return letsGo(message) === "drops";
}

/** The message's parts between punctuation, as words. */
function messageParts(message: string): string[] {
  return message.split(/[.;!?,\n]+/).map((part) => tokenize(part).join(" "))
    .filter((words) => words !== "");
}

/** Whether the parts only let a request go: the whole of a message, or its one part naming more. */
function onlyLetsGo(parts: readonly string[]): boolean {
  const words = parts.join(" ");
  return ONLY_LETTING_GO.test(words) || (parts.length === 1 && LETTING_GO.test(words));
}

/** Whether the parts thank and take nothing back: "thanks, no worries" (not "thanks, never mind"). */
function thanks(parts: readonly string[]): boolean {
  const words = parts.join(" ");
  return THANKS.test(words) && !TAKEN_BACK_ANYWHERE.test(words);
}

/** A part that takes back what came before it, then the request that replaces it. */
const TAKEN_BACK_FIRST = new RegExp(
  String.raw`^\s*(?:(?:${OPENERS})[\s,]+)*` +
    String
      .raw`(?:(?:never\s?mind|nvm)(?:\s+about)?(?:\s+(?:that|this|it)|\s+(?:the|my|your|our|those|these|what i (?:said|asked)(?:\s+about)?)\s+[^\s,.;!?–—-]+(?:\s+[^\s,.;!?–—-]+){0,3})?|forget (?:about )?(?:it|that)|scratch that|cancel that|(?:it )?doesn'?t matter|no worries)` +
    String.raw`\s*[,.;!–—-]+\s*(?=\S)`,
  "i",
);

/** The message after a first part that takes back what was asked before: "never mind. remember that …". */
export function afterTakingBack(message: string): string {
  let rest = message;
  for (let first = TAKEN_BACK_FIRST.exec(rest); first; first = TAKEN_BACK_FIRST.exec(rest)) {
    rest = rest.slice(first[0].length);
  }
  return rest;
}
