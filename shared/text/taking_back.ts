/**
 * Words that take a request back: "never mind", "forget it", "scratch that".
 * The offline planner plans nothing for such a message, and the reply lists
 * nothing it asked for before taking it back; what follows a first part that
 * takes back ("never mind. remember that …") is read as the request.
 */
import { tokenize } from "./words.ts";

/** Words that take back what was asked, whatever stands before them. */
const TAKING_BACK = String
  .raw`never ?mind|nvm|forget (?:about )?it|forget (?:that )?i (?:asked|said anything|said that|mentioned it)|scratch that|cancel that|(?:it )?doesn t matter`;
/** Words a take-back may open with: "oh, never mind", "actually, scratch that". */
const OPENERS = "ok|okay|oh|ah|hmm|no|actually|sorry|well|wait";
/** Words before or after them: "oh, never mind", "forget it then". */
const AROUND = {
  before: String.raw`^(?:(?:${OPENERS}|thanks|thank you)\s+)*`,
  after: String.raw`(?:\s+(?:then|please|thanks|thank you|for now|anyway|after all|it s fine))*$`,
};
/** A message that only lets its request go: the words above, or a milder "no worries". */
const LETTING_GO = new RegExp(
  `${AROUND.before}(?:${TAKING_BACK}|don t worry(?: about it)?|no worries|it s fine|skip it)${AROUND.after}`,
);
/** Its last part takes back what came before: "forget my bike. Never mind." */
const TAKEN_BACK = new RegExp(`${AROUND.before}(?:${TAKING_BACK})${AROUND.after}`);

/**
 * Whether the message asks for nothing after all: it only lets a request go
 * ("never mind", "no worries, forget it", "never mind, no worries"), or its
 * last part takes back the rest ("clear my memory. Actually, never mind").
 * Not "forget it, what time is it in Oslo?": that asks the time.
 */
export function dropsTheRequest(message: string): boolean {
  if (LETTING_GO.test(tokenize(message).join(" "))) return true;
  const parts = message.split(/[.;!?,\n]+/).map((part) => tokenize(part).join(" "))
    .filter((words) => words !== "");
  return parts.length > 1 &&
    (TAKEN_BACK.test(parts.at(-1)!) || parts.every((words) => LETTING_GO.test(words)));
}

/** A part that takes back what came before it, then the request that replaces it. */
const TAKEN_BACK_FIRST = new RegExp(
  String.raw`^\s*(?:(?:${OPENERS})[\s,]+)*` +
    String
      .raw`(?:never\s?mind|nvm|forget (?:about )?(?:it|that)|scratch that|cancel that|(?:it )?doesn'?t matter|no worries)` +
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
