/**
 * "there" for a place said before: "My friend Jordan lives in Lagos." then
 * "what time is it there?" asks Lagos' time. The offline planner plans the
 * message as it would with the end of the earlier sentence before it, from
 * a word that says where ("in", "to", "from" …): the place is the last one
 * that sentence names so ("I moved from Oslo to Lima": Lima); a name said
 * otherwise is no place ("Sydney called me", "my friend Jordan").
 */
import type { PlannedAction } from "../contracts.ts";
import type { ToolChoice } from "./tool_choice.ts";
import { namesPerson } from "./action_words.ts";

/** Words before "there" that make it no place: "is there", "hello there", "are we there". */
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
  const raw = message.toLowerCase().replaceAll("\u2019", "'").split(/\s+/);
  const plain = raw.map((token) => token.replace(/^[^\p{L}']+|[^\p{L}']+$/gu, ""));
  return plain.some((word, i) => {
    // "there's a loop", "there'll be time".
    if (word !== "there") return false;
    // Only what follows with nothing but a space between: "over there, is it late" points.
    const after = /[^\p{L}']$/u.test(raw[i]) ? undefined : plain[i + 1];
    return !NOT_A_PLACE_BEFORE.has(plain[i - 1] ?? "") && !NOT_A_PLACE_AFTER.has(after ?? "");
  });
}

/** Words of the earlier sentence read for what "there" points to: its last ones. */
const THERE_WORDS = 40;
/** Most places of a sentence tried, from its last. */
const THERE_TRIES = 4;
/** Longest message whose "there" is looked up (a question that says "there" is short). */
const THERE_MESSAGE_WORDS = 60;

/** Words that say where what follows is: "lives in Lagos", "moved to Lima", "flying into Denver". */
const WHERE = new Set(
  "in to from at into near around visit visits visiting visited towards toward outside inside across"
    .split(" "),
);

/** Sentences of earlier messages searched for what "there" points to. */
const THERE_REACH = 10;

/**
 * For a message whose `plan` has no args, the plan with args from the latest
 * earlier sentence that gives some, from the last place it names
 * (`chooseWith` plans the message, its args looked for in the text given and
 * the message). None when no sentence within reach gives any.
 */
export function thereBefore(
  message: string,
  plan: readonly PlannedAction[],
  earlier: readonly string[],
  chooseWith: (argText: string) => ToolChoice,
): ToolChoice | undefined {
  if (message.split(/\s+/).length > THERE_MESSAGE_WORDS) return undefined;
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
    const words = withoutPersonNames(sentence.trim()).slice(-THERE_WORDS);
    // The last place it names: "I'm in Oslo and my sister is in Lima" points to Lima.
    let tries = 0;
    for (let start = words.length - 1; start > 0 && tries < THERE_TRIES; start--) {
      if (!WHERE.has(words[start - 1].toLowerCase())) continue;
      tries++;
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
  // A name is written with a capital: "my aunt in Perth" names no one "in".
  return raw.filter((word, i) => !/^\p{Lu}/u.test(word) || !namesPerson(plain, i));
}
