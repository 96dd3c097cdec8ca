/**
 * What the offline planner tells the user through the reply (the notes it
 * gives `finalize_summary` as `instructions`): what it can do, when asked
 * ("what can you do?" and its everyday variants) or when no tool serves the
 * message; which details a tool that was asked for still needs; and a word
 * back for a greeting or a statement. The offered tools are described in
 * words, one line each, from the lead of their descriptions ("get the current
 * date and time in a place"); a remote server's tool is named, not described,
 * since its description is that server's text.
 */
import { contentWords, tokenize } from "../text/words.ts";
import type { PlannerTool } from "../ports.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import { SEARCH_TOOLS } from "../tools/search_tools.ts";
import { clipWords } from "../tools/step_sentences.ts";
import { descriptionLead, toolProfile } from "./tool_profile.ts";

/** Ways of asking what the assistant can do, over the message's lower-case words. */
const CAPABILITY_QUESTIONS = [
  /^(?:help|menu|commands|tools|capabilities)$/,
  // "I'm lost, help"
  /^(?:i m|i am|im) (?:lost|confused|stuck)(?: help(?: me)?)?$/,
  // "confused, what is this?", "how does this work": the app itself asked about.
  /^(?:(?:i m|i am|im) |i don t (?:get it|understand) )?(?:(?:lost|confused|new|new here|stuck) )?(?:what (?:s|is) this(?: (?:thing|app|bot|tool|place))?|how (?:does|do) (?:this|it|you) work)$/,
  // "huh?", "what?" alone: lost.
  /^(?:huh|eh|wut|what)$/,
  // "what's the point of you?"
  /\bwhat (?:s|is) the point of (?:you|this(?: (?:thing|app|bot|tool))?)\b/,
  /^(?:what|who) are you$/,
  /^(?:can|could) you help(?: me)?$/,
  // "can you do anything besides telling the time?"
  /\b(?:can|could) you do (?:anything|something|more|other things)(?: else)? (?:besides|other than|apart from|except|than)\b/,
  /\bwhat (?:else )?(?:can|could) (?:you|u|i|it|(?:this|the) (?:bot|app|assistant|thing)) (?:do|ask|help|use)\b/,
  /\bwhat (?:do|are|r) you (?:(?:even|actually|really|exactly|meant|supposed) )?(?:do|able|capable|good|for|offer)\b/,
  // "what stuff can you help me with", "which things can it do"
  /\b(?:what|which) (?:stuff|things|tasks|jobs) (?:can|could|do|are) (?:you|it) (?:do|help|handle|able to)\b/,
  /\bhow (?:can|could|do|would) you help\b/,
  /\bwhat (?:s|is|are) (?:possible|available)\b/,
  /\b(?:your|which|what|any other|other) (?:tools|capabilities|skills|features|functions|commands|abilities)\b/,
  /\bwhat (?:kinds?|sorts?|types?) of (?:things|stuff|tasks|requests|questions)\b/,
  // "what do I type here?", "what should I ask?"
  /\bwhat (?:do|should|can|am) i (?:supposed to |meant to )?(?:type|say|write|ask)(?: (?:here|you))?$/,
  // "can you remember things?", "are you able to forget stuff": a tool asked about, nothing named.
  /^(?:(?:can|could|will) you|are you able to) (?:remember|forget|store|save|keep|delete) (?:things|stuff|anything|facts|information|info|notes)(?: (?:about me|for me|i tell you))?$/,
  // "is it possible for you to erase our chat?": whether a tool does it, not a request to.
  /^(?:is it possible(?: for you)? to|(?:can|could) you (?:even|actually|ever)|are you (?:even |actually )?able to|do you know how to) (?:erase|delete|clear|wipe|remove|forget) (?:(?:our|this|the|my) )?(?:chats?|conversations?|convos?|threads?|history|messages)$/,
  // "just wondering, could you wipe a chat if I asked?"
  /^(?:(?:just )?wondering )?(?:could|can|would) you (?:wipe|delete|erase|clear|remove) (?:a|any|my|our|the) (?:chat|conversation|convo)s? if i (?:asked|ask|wanted)/,
  // "what's your purpose here", "where do I even start with you", "what all services do you provide"
  /\bwhat (?:s|is) (?:your|ur) (?:purpose|job|use)\b|\bwhere do i (?:even )?start\b|\bwhat (?:all )?services\b/,
  // "if I asked you to wipe this convo, would it be gone for good?"
  /^if i (?:asked|ask|told|tell) you to (?:erase|delete|clear|wipe|remove) (?:this|our|the) (?:chat|conversation|convo|thread)\b/,
];

/** Whether the message asks what the assistant can do. */
export function asksForCapabilities(message: string): boolean {
  const text = tokenize(message).join(" ");
  return CAPABILITY_QUESTIONS.some((pattern) => pattern.test(text));
}

/** Most tools listed by name and lead. */
const MAX_LISTED = 10;

/** One line per offered tool (the reply and tool search left out), in words. */
function describeTools(tools: readonly PlannerTool[]): string[] {
  const shown = tools.filter((tool) => tool.name !== FINALIZE_TOOL && tool.name !== SEARCH_TOOLS);
  const lines = shown.slice(0, MAX_LISTED).map((tool) => `- ${toolPhrase(tool)}`);
  if (shown.length > MAX_LISTED) lines.push(`- and ${shown.length - MAX_LISTED} more tools`);
  return lines;
}

/** What a tool does, for the user: "get the current date and time in a place (get_current_time)". */
function toolPhrase(tool: PlannerTool): string {
  if (tool.remote) return `use ${tool.name} (a tool of ${tool.remote})`;
  const lead = leadPhrase(tool);
  return lead ? `${lead} (${tool.name})` : tool.name;
}

/** The lead of a local tool's description, as a phrase to go inside a sentence. */
function leadPhrase(tool: PlannerTool): string {
  if (tool.remote) return "";
  const lead = descriptionLead(tool.description)
    .replace(/\bof the user's\b/gi, "of yours").replace(/\bthe user's\b/gi, "your")
    .replace(/\bthe user\b/gi, "you");
  const phrase = /^[A-Z][a-z]/.test(lead) ? lead.charAt(0).toLowerCase() + lead.slice(1) : lead;
  return clipWords(phrase, 110);
}

/**
 * "What is a refinement loop exactly?", "explain refinement loops", "how do
 * loops work?": a question about something the tools work with, answered
 * with the tools whose names and descriptions hold every word of it;
 * undefined for any other message, and for "what's my loop's status?" (the
 * writer's own thing is the tools' to read).
 */
export function toolsAboutNote(message: string, tools: readonly PlannerTool[]): string | undefined {
  // A question about a thing is short: a long message is never read for one.
  const words = tokenize(message);
  if (words.length > MAX_ABOUT_WORDS) return undefined;
  const asked = WHAT_IS.exec(words.join(" "))?.[1];
  if (asked === undefined || NOT_A_THING.test(asked)) return undefined;
  const thing = contentWords(asked);
  if (thing.length === 0 || thing.length > 4) return undefined;
  const about = tools.filter((tool) => {
    if (tool.name === FINALIZE_TOOL || tool.name === SEARCH_TOOLS) return false;
    // The tool's words, as its (cached) profile holds them: its name's and its description's.
    const { nameWords, verbs, descriptionWords } = toolProfile(tool);
    return thing.every((word) =>
      nameWords.has(word) || verbs.includes(word) || descriptionWords.has(word)
    );
  });
  if (about.length === 0) return undefined;
  return [
    `I have no language model here to explain "${asked}", but these tools of mine work with it:`,
    ...describeTools(about),
  ].join("\n");
}

/** Most words of a question about a thing the tools work with. */
const MAX_ABOUT_WORDS = 12;

/**
 * "what is a …", "what are …" (not "what is the …": that asks for its value),
 * "explain …", "how does … work", over lower-case words.
 */
const WHAT_IS =
  /^(?:(?:so|ok|okay|and|but|hmm|sorry)\s+)*(?:what (?:s|is) an?|what are|what does an?|explain(?: what)?(?: an?| the)?|how (?:does|do)(?: an?| the)?|tell me about(?: an?| the)?)\s+(.+?)(?:\s+(?:exactly|again|mean|means|work|works|do|anyway|actually|is|are|here|to me|for me|please|briefly|simply))*$/;
/** What makes the words no thing to explain: the writer's own, a pronoun, a place or a number. */
const NOT_A_THING =
  /\b(?:my|your|our|its|this|that|these|those|i|you|we|it|they|them|me|us|there|here|in|at|of|for|to|new|up|next|going|happening|wrong|\d+)\b/;

/** The reply's note for "what can you do?". */
export function capabilitiesNote(tools: readonly PlannerTool[]): string {
  const lines = describeTools(tools);
  if (lines.length === 0) return "I have no tools to use here, so I can only answer from memory.";
  return [
    "I choose among my tools by the words of your message (there is no language model here). I can:",
    ...lines,
  ].join("\n");
}

/** The reply's note when no tool serves the message, with what can be done instead. */
export function unservedNote(tools: readonly PlannerTool[]): string {
  const lines = describeTools(tools);
  const head = "None of my tools does that, so I did nothing.";
  return lines.length === 0 ? head : [`${head} What I can do:`, ...lines].join("\n");
}

/** A tool that was asked for, and the required args the message did not give. */
export interface MissingArgs {
  tool: PlannerTool;
  args: string[];
  /** What the message said for the (one) arg, which the tool's check refused. */
  refused?: string;
}

/**
 * "To use <tool> (<what it does>), I need <each missing arg>." — one sentence
 * per tool; for a value the tool refused, "I don't know "<value>" as <the arg>".
 */
export function missingArgsNote(missing: readonly MissingArgs[]): string {
  return missing.map(({ tool, args, refused }) => {
    const properties = (tool.argsSchema?.properties ?? {}) as Record<string, JsonSchema>;
    const needed = args.map((arg) => argPhrase(arg, properties[arg] ?? {}));
    const lead = leadPhrase(tool);
    if (refused !== undefined) {
      return `I don't know "${refused}" as ${needed[0]}, so I did not use ${tool.name}${
        lead ? ` (${lead})` : ""
      }: say it another way.`;
    }
    return `To use ${tool.name}${lead ? ` (${lead})` : ""}, I need ${
      listWords(needed)
    }: say it in your message.`;
  }).join("\n");
}

/** Words that acknowledge what was said ("ok, great"). */
const ACKNOWLEDGING = new Set(
  ("ok okay great cool perfect awesome excellent brilliant alright nice lovely " +
    "so very much sweet work job good yay then lol haha hehe lmao ah oh neat gotcha im dead").split(
      " ",
    ),
);

/** The note for a question about the writer that neither memory nor earlier messages answer. */
export const UNKNOWN_ABOUT_YOU_NOTE =
  'I don\'t know that yet: nothing you asked me to remember says it. Tell me with "remember that …" and I will keep it for your later conversations.';

/**
 * The note beside a read of the time for a message that asks about another
 * time of day ("when it's noon in Chicago, what time is it in Warsaw?").
 */
export const ONLY_NOW_NOTE =
  "That is the time now: I can only tell the current time, not work out another time of day.";

/** Whether the message asks about a time of day other than now: "when it's 9am in …", "convert 5pm …". */
export function asksAnotherTime(message: string): boolean {
  return ANOTHER_TIME.test(tokenize(message).join(" "));
}

const ANOTHER_TIME =
  /\b(?:when|if|once) (?:it (?:s|is|will be|gets to)|its) (?:\d{1,2}(?: \d{2})? ?(?:am|pm|o clock)?|noon|midnight|midday)\b|\bconvert \d{1,2}(?: \d{2})? ?(?:am|pm)?\b|\b\d{1,2}(?: \d{2})? ?(?:am|pm) (?:in|for) \w+ (?:is|would be|will be) (?:what|when)\b/;

/** The note for a message that takes back what it asked ("never mind"). */
export const LET_GO_NOTE =
  'All right, I left it. Ask me for something else, or "what can you do?" to see my tools.';

/** Words that thank, in English and in the few other languages every chat knows. */
const THANKING = (
  "thanks thank cheers helpful appreciated appreciate ta star legend " +
  "merci gracias danke grazie obrigado obrigada obliged sorted"
).split(" ");

/** A word back for a greeting, thanks, goodbye or acknowledgement. */
export function greetingNote(message: string): string {
  const said = tokenize(message).join(" ");
  // "no thanks" declines what was offered.
  if (/\bno (?:thanks|thank you)\b/.test(said)) return LET_GO_NOTE;
  const words = new Set(said.split(" "));
  if (THANKING.some((word) => words.has(word))) return "You're welcome.";
  // "see you", "ok see you later" (not "nice to see you").
  const seeYou =
    /^(?:(?:ok|okay|alright|right|well) )*(?:see|catch) (?:you|ya)\b|\b(?:im|i m) off\b/.test(
      said,
    ) ||
    (words.has("see") && ["soon", "later", "tomorrow"].some((word) => words.has(word)));
  if (
    seeYou || ["bye", "goodbye", "have", "night", "laters", "dash"].some((word) => words.has(word))
  ) {
    return "Goodbye!";
  }
  // "ok", "great", "perfect": an acknowledgement, not a hello.
  if ([...words].every((word) => ACKNOWLEDGING.has(word))) {
    return 'Glad to help. Ask me for something else, or "what can you do?" to see my tools.';
  }
  return 'Hello! I choose tools by the words of your message: ask "what can you do?" to see them.';
}

/** The note for a remark about something, which asks for nothing. */
export const REMARK_NOTE =
  'I did not act on that: none of my tools serves it. Ask "what can you do?" to see them.';

/** The note for a statement about the writer that asks for nothing. */
export function statementNote(tools: readonly PlannerTool[]): string {
  if (!tools.some((tool) => tool.name === "remember")) return unservedNote(tools);
  return 'I did not act on that: none of my tools serves it. To have me keep it for later conversations, say "remember that …".';
}

type JsonSchema = Record<string, unknown>;

/** "the loop type (one of plan, spec or build_code)", "the loop id (8 lowercase hex characters)". */
function argPhrase(name: string, schema: JsonSchema): string {
  const words = `the ${
    name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase()
  }`;
  if (Array.isArray(schema.enum)) {
    return `${words} (one of ${listWords(schema.enum.map(String), "or")})`;
  }
  const description = typeof schema.description === "string" ? schema.description : "";
  const aside = /\(([^)]{1,80})\)/.exec(description)?.[1] ??
    (description.length <= 80 ? description : "");
  return aside ? `${words} (${aside.charAt(0).toLowerCase()}${aside.slice(1)})` : words;
}

/** "a, b and c". */
function listWords(items: readonly string[], last = "and"): string {
  return items.length <= 1
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} ${last} ${items.at(-1)}`;
}
