/**
 * Which offered tools the offline planner plans for a message, and with
 * which args. A tool that only reads is planned when the message is about it
 * (it shares the words of the tool's name, or of its description's lead) and
 * is not a statement or a greeting; when the message asks for something with
 * a verb some tool answers to, a read must answer to that verb too ("record a
 * score" runs no listing). A tool that changes something is planned only for
 * a clause that asks for it: the clause opens with one of the tool's verbs,
 * names what the tool acts on ("start a … loop", "archive ticket T-12"),
 * or uses the tool's own verb with an arg stated ("convert 120 dollars to
 * EUR"); and the message itself states a required arg when there are any.
 * A tool asked for whose required args are unknown is reported, so the reply
 * can say what it needs. The memory tools are left to `memory_intents.ts`.
 */
import type { PlannedAction } from "../contracts.ts";
import type { PlannerTool } from "../ports.ts";
import { contentWords, stem, STOP_WORDS, tokenize } from "../text/words.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import { SEARCH_TOOLS } from "../tools/search_tools.ts";
import { impliedWords, isKnownVerb, isReadVerb, sameAction, sameThing } from "./action_words.ts";
import {
  type ArgSources,
  eachListedOption,
  eachStatedValue,
  fillArgs,
  missingArgs,
  type Producer,
  refusedArg,
} from "./arg_filler.ts";
import { MEMORY_INTENT_TOOLS } from "./memory_intents.ts";
import type { MissingArgs } from "./planner_notes.ts";
import { asks, type Clause, followsUp, type MessageReading } from "./request_reading.ts";
import { argProperties, type ToolProfile, toolProfile } from "./tool_profile.ts";

/** What the planner chose: the steps, and the tools asked for that lack args. */
export interface ToolChoice {
  plan: PlannedAction[];
  missing: MissingArgs[];
}

/** What a choice is made from. */
export interface ChoiceInput {
  message: string;
  /** Where args are looked for, when more than `message` (the whole of a message `message` is the rest of). */
  argText?: string;
  reading: MessageReading;
  context: Record<string, unknown>;
  tools: readonly PlannerTool[];
  /** How many steps earlier rounds ran (step references count from there). */
  earlierSteps: number;
  /** The tool's lexical similarity to the message, for ranking reads. */
  scoreOf: (tool: PlannerTool) => number;
  minScore: number;
  relativeScore: number;
  maxTools: number;
}

interface Candidate {
  tool: PlannerTool;
  /** The clause that asks for it (-1: none, a read on topic). */
  clause: number;
  score: number;
  /** A write asked for by its own verb alone: an arg stated in the message is its object. */
  byOwnVerb: boolean;
  /**
   * A read never cut for its score: one of several things its clause names
   * ("show me my loops and the time"), or asked in other words ("is it late in Lima?").
   */
  uncut?: boolean;
}

/** Chooses the tools (see the module doc). */
export function chooseTools(input: ChoiceInput): ToolChoice {
  const candidates = closeReads(candidatesFor(input), input);
  const plan: PlannedAction[] = [];
  const producers: Producer[] = [];
  const sources = (producersSoFar: readonly Producer[], tool: PlannerTool): ArgSources => ({
    message: input.argText ?? input.message,
    context: input.context,
    producers: producersSoFar,
    acceptsArg: tool.acceptsArg,
  });
  const fill = (candidate: Candidate, withProducers: readonly Producer[]) => {
    const { tool } = candidate;
    const filled = fillArgs(tool.argsSchema ?? {}, sources(withProducers, tool));
    if (!filled || tool.readOnly) return filled?.args;
    const required = (tool.argsSchema?.required ?? []) as string[];
    const stated = candidate.byOwnVerb
      ? filled.fromMessage.length > 0
      : required.length === 0 || filled.fromMessage.some((arg) => required.includes(arg));
    return stated ? filled.args : undefined;
  };
  const add = (tool: PlannerTool, args: Record<string, unknown>) => {
    producers.push({
      position: input.earlierSteps + plan.length,
      name: tool.name,
      outputSchema: tool.outputSchema,
    });
    plan.push({ tool: tool.name, args });
  };
  // First the tools whose args are known; then those that need an earlier one's output.
  const waiting: Candidate[] = [];
  const missing: MissingArgs[] = [];
  for (const candidate of candidates) {
    if (plan.length >= input.maxTools) break;
    const args = fill(candidate, []);
    // "the time in Gotham City": a place the tool does not know is said so, not left out.
    const refused = args &&
      refusedArg(candidate.tool.argsSchema ?? {}, args, sources([], candidate.tool));
    if (refused) {
      missing.push({ tool: candidate.tool, args: [refused.arg], refused: refused.value });
    } else if (!args) waiting.push(candidate);
    else {
      // A read asked about several places (or other stated values) runs once for each; a write
      // once for each type listed ("start a spec loop and a build code loop").
      const { tool } = candidate;
      const each = tool.readOnly
        ? eachAsked(tool, args, sources([], tool))
        : eachListedOption(tool.argsSchema ?? {}, args, input.message);
      for (const stated of each) if (plan.length < input.maxTools) add(tool, stated);
    }
  }
  for (const candidate of waiting) {
    const args = plan.length < input.maxTools ? fill(candidate, producers) : undefined;
    if (args) add(candidate.tool, args);
    else {
      const args = missingArgs(candidate.tool.argsSchema ?? {}, sources(producers, candidate.tool));
      if (args.length > 0) missing.push({ tool: candidate.tool, args });
    }
  }
  return { plan, missing };
}

/** A read's args once for each value stated, those of another part that asks for it too included. */
function eachAsked(
  tool: PlannerTool,
  args: Record<string, unknown>,
  sources: ArgSources,
): Record<string, unknown>[] {
  const profile = toolProfile(tool);
  const asksAgain = (part: string) => isAbout(profile, topicWords(part)) || followsUp(part);
  return eachStatedValue(tool.argsSchema ?? {}, args, sources, asksAgain);
}

/** The tools the message asks for or is about, in the order they should run. */
function candidatesFor(
  { message, reading, tools, scoreOf, minScore }: ChoiceInput,
): Candidate[] {
  const asking = reading.clauses.filter((clause) => clause.verb !== undefined);
  // The memory tools are planned by their own grammar only (`memory_intents.ts`).
  const offered = tools.filter((tool) =>
    tool.name !== FINALIZE_TOOL && tool.name !== SEARCH_TOOLS &&
    !MEMORY_INTENT_TOOLS.includes(tool.name)
  );
  const answersVerb = (clause: Clause, profile: ToolProfile) =>
    profile.verbs.some((verb) => sameAction(clause.verb!, verb));
  // A part that asks with a verb some tool answers to ("record a score") or for a change no tool
  // makes ("cancel my last loop") decides which reads join it: only those asked by its verb. A
  // read the message is about runs beside it when a question of its own asks for it: "What time
  // is it in London? Also list my loops", "I need to call Sydney, what time is it there?" (not
  // "start a spec loop, the time is right").
  const deciding = asking.filter((clause) =>
    offered.some((tool) => answersVerb(clause, toolProfile(tool))) || !asksToRead(clause)
  );
  // The parts that ask the time in other words ("is it late in Lima?"), found once.
  const timeParts = partsOf(message).filter((part) => impliedWords(part).length > 0);
  const questions = ownQuestions(timeParts, reading.clauses, deciding);
  const aboutFreePart = (profile: ToolProfile) =>
    deciding.length === 0 || questions.some((words) => isAbout(profile, words));
  const implied = new Set(timeParts.flatMap(impliedWords).map(stem));
  const words = topicWords(message, implied);
  const reads: Candidate[] = [];
  const writes: Candidate[] = [];
  for (const tool of offered) {
    const profile = toolProfile(tool);
    if (tool.readOnly) {
      if (reading.kind === "statement" || reading.kind === "greeting") continue;
      const { clause, listed } = readAskedBy(
        asking,
        kin(tool, offered),
        (clause) => answersVerb(clause, profile),
      );
      if (clause < 0 && !isAbout(profile, words)) continue;
      if (clause < 0 && !aboutFreePart(profile)) continue;
      // A message about the tool in other words ("what hour is it …" for a time tool) shares
      // none of its text: it stays a candidate, at the least score.
      const inOtherWords = clause < 0 && [...implied].some((word) => profile.nameWords.has(word));
      const score = inOtherWords ? Math.max(scoreOf(tool), minScore) : scoreOf(tool);
      if (score < minScore) continue;
      // Asked in other words, it is asked for itself: never cut for its score.
      reads.push({ tool, clause, score, byOwnVerb: false, uncut: listed || inOtherWords });
    } else {
      const clause = asking.findIndex((clause) =>
        answersVerb(clause, profile) && (names(clause, profile) || clause.verb === profile.nameVerb)
      );
      if (clause < 0) continue;
      const byOwnVerb = !names(asking[clause], profile);
      writes.push({ tool, clause, score: scoreOf(tool), byOwnVerb });
    }
  }
  return [...writes, ...reads].sort((a, b) => rank(a) - rank(b) || b.score - a.score);
}

/**
 * The clause (-1: none) that asks for a read of `family[0]` (its kin after
 * it): one that names the read's thing among what a verb of reading asks for
 * ("show me my loops and the time in Tokyo"; `listed` when it is one of
 * several things there), else one that asks by the read's own verb ("sleep 2
 * s" for `sleep`) and not for another thing ("list my invoices" lists no
 * loops; "show my loops. What time is it in Paris?" asks the time by its
 * question, not by "show").
 */
function readAskedBy(
  asking: readonly Clause[],
  family: readonly PlannerTool[],
  answers: (clause: Clause) => boolean,
): { clause: number; listed: boolean } {
  for (const [clause, asked] of asking.entries()) {
    if (!answers(asked) && !asksToRead(asked)) continue;
    const { names, listed } = thingsNamed(asked, family);
    if (names) return { clause, listed };
  }
  const profile = toolProfile(family[0]);
  const clause = asking.findIndex((clause) =>
    answers(clause) && !namesOtherThing(clause, family, profile)
  );
  return { clause, listed: false };
}

/**
 * The topic words of each part that asks a question in its own words: "what
 * time is it …", or the time as written (`timeParts`: "Is it 5:30 in
 * Tokyo?", "How many hours ahead is Tokyo?", read from the message, whose
 * case and punctuation the clauses' words have lost). Not the `deciding`
 * clauses.
 */
function ownQuestions(
  timeParts: readonly string[],
  clauses: readonly Clause[],
  deciding: readonly Clause[],
): Set<string>[] {
  return [
    ...clauses.filter((clause) => !deciding.includes(clause) && asks(clause.words))
      .map((clause) => topicWords(clause.words.join(" "))),
    ...timeParts.map((part) => topicWords(part)),
  ];
}

/**
 * Whether the clause asks for something to be read, worked out or sent ("text
 * me the time in Lima", "email my boss the time"): what a read finds is what
 * the reply can give, even where no tool sends it.
 */
function asksToRead(clause: Clause): boolean {
  return isReadVerb(clause.verb!) || sameAction(clause.verb!, "send");
}

/**
 * The candidates without the reads scoring under `relativeScore` of the best
 * read whose args are known: a read that cannot run does not crowd out one
 * that can ("the status of my loops" lists them when no loop id is given).
 */
function closeReads(candidates: Candidate[], input: ChoiceInput): Candidate[] {
  const reads = candidates.filter(({ tool }) => tool.readOnly);
  const runnable = reads.filter(({ tool }) =>
    fillArgs(tool.argsSchema ?? {}, {
      message: input.argText ?? input.message,
      context: input.context,
      acceptsArg: tool.acceptsArg,
    }) !== undefined
  );
  // Reads are compared with those asked the same way: by one part's verb, or by topic.
  // A read never cut is no rival either: "get me the active loops and the hour in Lima" asks for
  // both.
  const best = (clause: number) => {
    const rivals = runnable.some((read) => read.clause === clause) ? runnable : reads;
    return Math.max(
      0,
      ...rivals.filter((read) => read.clause === clause && !read.uncut).map(({ score }) => score),
    );
  };
  return candidates.filter(({ tool, score, clause, uncut }) =>
    !tool.readOnly || uncut || score >= best(clause) * input.relativeScore
  );
}

const rank = (candidate: Candidate) =>
  candidate.clause < 0 ? Number.MAX_SAFE_INTEGER : candidate.clause;

/** Whether the clause names what the tool acts on ("this conversation" for `forget_session`). */
function names(clause: Clause, profile: ToolProfile): boolean {
  return clause.words.some((word) => sameThing(word).some((same) => profile.objects.has(same)));
}

/** Words after a verb that name no particular thing ("list them all", "show everything"). */
const VAGUE = new Set(
  ("all every everything anything something stuff thing things one ones item items latest last " +
    "recent current new now today again more list here").split(" "),
);

/**
 * Whether the clause, asking by the tool's verb, is about a thing the tool
 * says nothing of: its object (its last word that names something) is in
 * neither the tool's name, its description nor its args' names ("list recipes
 * with a limit of 5"), nor a value its args take.
 * "list my sessions" for a tool that lists loops; not "list them", "list the
 * unfinished ones", "sleep 2 s", "list what I started", "get the hour in
 * Paris", or "list my specs" (a value its kin's args take: `loop_type` of
 * `initialize_refinement_loop` for `list_active_loops`).
 */
function namesOtherThing(
  clause: Clause,
  [tool, ...kin]: readonly PlannerTool[],
  profile: ToolProfile,
): boolean {
  // "every loop I own": the object is before the clause about the writer.
  const said = clause.words.slice(1);
  const writer = said.findIndex((word, i) => i > 0 && (word === "i" || word === "we"));
  const rest = writer < 0 ? said : said.slice(0, writer);
  if (rest.some((word) => CLAUSE_OPENERS.has(word))) return false;
  const object = rest.findLast((word) =>
    word.length > 1 && !/^\d/.test(word) && !STOP_WORDS.has(word)
  );
  if (object === undefined || VAGUE.has(object) || isKnownVerb(object)) return false;
  const related = sameThing(object).some((same) =>
    profile.objects.has(same) || profile.nameWords.has(same) ||
    profile.descriptionWords.has(same) || profile.argWords.has(same)
  );
  if (related) return false;
  // The object may end a value of several words: "the time in New York", "… in Buenos Aires".
  const end = rest.lastIndexOf(object);
  const values = [1, 2, 3].map((size) =>
    rest.slice(Math.max(0, end + 1 - size), end + 1).join(" ")
  );
  return ![tool, ...kin].some((each) => values.some((value) => takesValue(each, value)));
}

/** Most things of one clause read for what they name ("my loops and the time and …"). */
const MAX_THINGS = 8;

/**
 * Whether one of the things the clause asks for after its verb (a list, split
 * at "and", "plus" or "also": `listed`) is the tool's own: it holds a word of
 * the tool's name, not a number's ("6 times 8"), and is about nothing else
 * the tool knows nothing of ("show me my loops and the time in Tokyo" asks
 * for the loops and the time, though it ends naming Tokyo; "list the time in
 * Paris" asks the time; "show me the time tracker loops" asks for no time).
 */
function thingsNamed(
  clause: Clause,
  family: readonly PlannerTool[],
): { names: boolean; listed: boolean } {
  const profile = toolProfile(family[0]);
  const things = clause.words.slice(1).join(" ").split(/\b(?:and|plus|also)\b/)
    .slice(0, MAX_THINGS);
  const names = things.some((thing) => {
    const words = [...topicWords(thing)].filter((word) => !isKnownVerb(word));
    const named = (tool: PlannerTool) =>
      words.filter((word) => toolProfile(tool).nameWords.has(word)).length;
    // Of a loop's tools, the one its words name most, and none of them a value only another one
    // takes: "the status of loop 1a2b3c4d" and "loop 1a2b3c4d a score of 88" are no listing.
    const said = tokenize(thing);
    const theirs = () =>
      said.some((word) =>
        family.slice(1).some((tool) => takesValue(tool, word)) && !takesValue(family[0], word)
      );
    const own = named(family[0]);
    return own > 0 && family.every((tool) => named(tool) <= own) && !theirs() &&
      !namesOtherThing({ words: [clause.words[0], ...said] }, family, profile);
  });
  return { names, listed: things.length > 1 };
}

/** `tool`, then the offered tools whose names share a word with its name (a loop's tools). */
function kin(tool: PlannerTool, offered: readonly PlannerTool[]): PlannerTool[] {
  const words = toolProfile(tool).nameWords;
  return [
    tool,
    ...offered.filter((other) =>
      other !== tool && [...toolProfile(other).nameWords].some((word) => words.has(word))
    ),
  ];
}

/** Words after a verb that open a clause as its object ("list what I started"). */
const CLAUSE_OPENERS = new Set(["what", "which", "who", "whom", "where", "when", "how", "why"]);

/** Whether one of the tool's args takes `word` (or a phrase of a few words) as a value (an enum value, or its own check). */
function takesValue(tool: PlannerTool, word: string): boolean {
  const properties = argProperties(tool) as Record<string, Record<string, unknown>>;
  return Object.entries(properties).some(([name, property]) =>
    (Array.isArray(property.enum) &&
      property.enum.some((value) =>
        typeof value === "string" && tokenize(value).some((part) => stem(part) === stem(word))
      )) ||
    (tool.acceptsArg?.(name, word) ?? false) ||
    (tool.acceptsArg?.(name, word.charAt(0).toUpperCase() + word.slice(1)) ?? false)
  );
}

/**
 * The content words a text is about: not a number, nor a word between two
 * numbers ("12 times 7" is a sum, not the time); with the words a part means
 * without saying them ("time" for "what hour is it in Lima?").
 */
function topicWords(text: string, implied = impliedTopicWords(text)): Set<string> {
  const plain = text.replace(/(\d)\s+\p{L}+(?:\s+by)?\s+(?=\d)/gu, "$1 ")
    .replace(IDIOMS, (idiom) => idiom.replace(/\b(?:time|loop|days?|scores?)\b/gi, ""));
  const words = contentWords(plain).filter((word) => !/^\d+$/.test(word));
  return new Set([...words, ...implied]);
}

/**
 * "Time" that is not the clock's: "last time", "on time", "spare time", "do I
 * have time", "time complexity", "time off", "time flies", "where did the
 * time go", "about time", and the time of something else ("what time does the
 * store close", "what time is the meeting", "what time is sunset"); not "the
 * time in Lima", "local time", "the same time zone", "a good time to call
 * Sydney" (the time there helps), "what time do they have in Oslo" or "what
 * time is it". A "day" that is no date: "how's your day going", "what days do
 * I train". A "loop" that is no refinement loop: "on loop", "on a loop". A
 * "score" that is no loop's: "the score of last night's game", "my credit score".
 */
const IDIOMS = new RegExp(
  [
    String
      .raw`\b(?:last|next|first|this|every|each|any|some|spare|free|on|in|long|hard|rough|same|full|part|half|all the|at the|have|had|has|enough|no|more|less|much|saving|screen|quality|from time to)\s+time\b(?!\s+zones?\b)`,
    String
      .raw`\btime\s+(?:complexity|off|management|travel|machine|line|frame|slot|sheet|limit|out|capsule|series|span|stamp|being)\b`,
    // Not "what time do they have in …": the clock there.
    String
      .raw`\bwhat\s+time\s+(?:does|do|did|should|would|will)\s+(?!it\b|(?:they|you|people|we|folks)\s+have\b)`,
    String.raw`\bwhat\s+time\s+(?:is|was|are|were)\s+(?:the|my|our|your|his|her|their)\s`,
    String.raw`\btime\s+(?:flies|flew|heals|will tell|is money|after time|and again)\b`,
    String
      .raw`\b(?:great|fun|nice|lovely|wonderful|tough|difficult|good old)\s+time(?!\s+(?:to|for|zones?)\b)`,
    // The times of the day's events: "what time is sunset in Oslo", "what time is lunch".
    String
      .raw`\bwhat\s+time\s+(?:is|was|s)\s+(?:sunrise|sunset|dawn|dusk|twilight|high\s+tide|low\s+tide|breakfast|brunch|lunch|dinner|supper|kickoff|kick-off|tip-off|mass|church|prayers?|class|school|practice|rehearsal|checkout|check-out|check-in|boarding|departure|arrival|curfew|happy\s+hour|closing|opening)\b`,
    String.raw`\bon\s+(?:a\s+)?loop\b`,
    // "how's your day going?", "where did the time go", "it's about time", "what days do I train?"
    String
      .raw`\bhow(?:'s|\s+is|\s+was|\s+s)\s+(?:your|the|my)\s+day\b|\byour\s+day\s+(?:going|been)\b|\bwhere\s+(?:did|does|has)\s+the\s+time\s+(?:go|gone)\b|\b(?:about|high)\s+time\b(?!\s+zones?\b)`,
    String
      .raw`\bwhat\s+days?\s+(?:do|does|did|should|will|can|am|is|are)\s+(?:i|we|my|our)\b`,
    // A score that is no loop's: "the score of last night's game", "my credit score".
    String
      .raw`\bscores?\s+(?:in|of|for|at|from)\s+(?:[\p{L}\d'’.-]+\s+){0,5}?(?:game|games|match|matches|fixture|race|final|finals|series|tournament|derby|playoffs?|cup|bowl|league|season)\b`,
    String
      .raw`\b(?:credit|test|exam|sat|act|gre|gmat|golf|bowling|box|final|half-time|halftime|match|game|high)\s+scores?\b`,
  ].join("|"),
  "giu",
);

/** The words the text's parts mean without saying them (stemmed). */
function impliedTopicWords(text: string): Set<string> {
  return new Set(partsOf(text).flatMap(impliedWords).map(stem));
}

/** The text's parts as written, between commas and sentence ends (each with its end). */
function partsOf(text: string): string[] {
  return text.match(/[^.;!?\n,]+[.;!?\n,]*/g) ?? [];
}

/**
 * Whether the message is about the tool: a word of its name counts two, a word
 * of its description's lead one; two are needed, one in a message of three
 * words or fewer ("date today").
 */
function isAbout(profile: ToolProfile, words: ReadonlySet<string>): boolean {
  // A lone letter ("what's", "today's" → "s") says nothing.
  const saying = [...words].filter((word) => word.length >= 2);
  let weight = 0;
  for (const word of saying) {
    if (profile.nameWords.has(word)) weight += 2;
    else if (profile.leadWords.has(word)) weight += 1;
  }
  return weight >= 2 || (weight === 1 && saying.length <= 3);
}
