/**
 * "there" for a place said before: "My friend Jordan lives in Lagos." then
 * "what time is it there?" asks Lagos' time. The offline planner plans the
 * message as it would with the end of the earlier sentence before it, from
 * a word that says where ("in", "to", "from" …): the place is the last one
 * that sentence names so ("I moved from Oslo to Lima": Lima); a name said
 * otherwise is no place ("Sydney called me", "my friend Jordan").
 */
import type { ToolChoice } from "./tool_choice.ts";
import { namesPerson } from "./action_words.ts";

/** Words before "there" that make it no place: "is there", "hello there", "is anyone there". */
const NOT_A_PLACE_BEFORE = new Set(
  ("is are was were isn't aren't 's hi hello hey so anyone anybody someone somebody you we got " +
    "get").split(" "),
);
/** Words after "there" that make it no place: "there is", "there are", "there will be". */
const NOT_A_PLACE_AFTER = new Set(
  "is are was were 's be will may might must has have isn't aren't we you".split(" "),
);

/** Whether the message says "there" for a place ("what time is it there?", "over there, is it late?"). */
export function pointsThere(message: string): boolean {
  const text = message.toLowerCase().replaceAll("\u2019", "'");
  return [...text.matchAll(/\bthere\b/g)].some(({ index }) => {
    const before = /(\S+)\s+$/.exec(text.slice(0, index))?.[1];
    // Only what follows with nothing but a space between: "over there, is it late" points.
    const after = /^\s+([\w']+)/.exec(text.slice(index + 5))?.[1];
    // "there's a loop", "there'll be time".
    if (text[index + 5] === "'") return false;
    return !(before && NOT_A_PLACE_BEFORE.has(before.replace(/^\W+/, ""))) &&
      !(after && NOT_A_PLACE_AFTER.has(after));
  });
}

/** Words that say where what follows is: "lives in Lagos", "moved to Lima", "flying into Denver". */
const WHERE = new Set(
  "in to from at into near around visit visits visiting visited towards toward outside inside across"
    .split(" "),
);

/** Sentences of earlier messages searched for what "there" points to. */
const THERE_REACH = 6;

/**
 * For a message whose plan has no args, the plan with args from the latest
 * earlier sentence that gives some, from the last place it names
 * (`chooseWith` plans the message, its args looked for in the text given and
 * the message). None when no sentence within reach gives any.
 */
export function thereBefore(
  message: string,
  earlier: readonly string[],
  chooseWith: (argText?: string) => ToolChoice,
): ToolChoice | undefined {
  const { plan } = chooseWith();
  // "My neighbour moved to Quito; what time is it there?" says where itself.
  if (plan.some((step) => Object.keys(step.args).length > 0)) return undefined;
  const alone = JSON.stringify(plan);
  const withText = (said: string): ToolChoice | undefined => {
    const choice = chooseWith(`${said}${/[.;!?]$/.test(said) ? "" : "."} ${message}`);
    // The same tools, with args: nothing the message did not ask for ("start a loop there").
    const same = choice.plan.every((step) => plan.some(({ tool }) => tool === step.tool));
    return same && JSON.stringify(choice.plan) !== alone ? choice : undefined;
  };
  const sentences = earlier.flatMap((text) => text.match(/[^.;!?\n]+[.;!?\n]*/g) ?? []);
  for (const sentence of sentences.slice(-THERE_REACH).reverse()) {
    const words = withoutPersonNames(sentence.trim());
    // The last place it names: "I'm in Oslo and my sister is in Lima" points to Lima.
    for (let start = words.length - 1; start > 0; start--) {
      if (!WHERE.has(words[start - 1].toLowerCase())) continue;
      const choice = withText(words.slice(start).join(" "));
      if (choice) return choice;
    }
  }
  return undefined;
}

/** The sentence's words without a person's name ("my friend Jordan" is no place). */
function withoutPersonNames(sentence: string): string[] {
  const raw = sentence.split(/\s+/);
  const plain = raw.map((word) => word.toLowerCase().replace(/^[^\p{L}]+|[^\p{L}]+$/gu, ""));
  return raw.filter((_, i) => !namesPerson(plain, i));
}
