/**
 * Fills a tool's args without a model: by name from the context (top level,
 * or one level down, so `loop_id` finds `{initialize_refinement_loop: {id}}`),
 * and for required args from the message, using the schema's constraints
 * (an enum value the message mentions, a token matching a pattern, a number
 * in range). Returns undefined when a required arg stays unknown.
 */
import { memoryStatements } from "../memory/working_memory.ts";
import { escapeRegExp, STOP_WORDS, tokenize } from "../text/words.ts";
import { spelledNumbersIn } from "../text/spelled_numbers.ts";
import { stemEnglish } from "../text/english_stemmer.ts";
import { isKnownVerb, isPersonWord, namesCapitalised, namesPerson } from "./action_words.ts";

type JsonSchema = Record<string, unknown>;

/** An earlier step of the plan being built, whose output a later step may reference. */
export interface Producer {
  /** Its position in the run (the `n` of `/steps/<n>`). */
  position: number;
  /** Its tool's name and declared output schema. */
  name: string;
  outputSchema?: JsonSchema;
}

/** A tool's args and where each came from. */
export interface FilledArgs {
  args: Record<string, unknown>;
  /** The args the message itself stated (not the context, a default or a reference). */
  fromMessage: string[];
}

/** Where a tool's args are looked for. */
export interface ArgSources {
  message: string;
  context: Record<string, unknown>;
  producers?: readonly Producer[];
  /** The tool's own check of one arg's value (see `PlannerTool.acceptsArg`). */
  acceptsArg?: (name: string, value: unknown) => boolean;
}

/**
 * Args for a tool with `schema`, or undefined when a required one is unknown.
 * An arg comes from the context by name, else from the message (required args
 * always; optional ones only when the message states a value the schema
 * singles out: an enum value, a token matching a pattern, or a phrase the
 * tool's own schema accepts while it refuses arbitrary words). A required arg
 * found nowhere else becomes a step reference to the latest producer whose
 * output schema has it (see {@link referenceFor}).
 */
export function fillArgs(schema: JsonSchema, sources: ArgSources): FilledArgs | undefined {
  const args: Record<string, unknown> = {};
  const fromMessage: string[] = [];
  for (const [name, property, required] of argsOf(schema)) {
    const found = findArg(name, property, required, sources);
    if (found === undefined) {
      if (required) return undefined;
      continue;
    }
    args[name] = found.value;
    if (found.fromMessage) fromMessage.push(name);
  }
  return { args, fromMessage };
}

/** The required args of `schema` that {@link fillArgs} finds nowhere. */
export function missingArgs(schema: JsonSchema, sources: ArgSources): string[] {
  return argsOf(schema).filter(([name, property, required]) =>
    required && findArg(name, property, required, sources) === undefined
  ).map(([name]) => name);
}

/**
 * An arg left out of `args` for which the message names a place the arg's own
 * check refuses ({@link unknownPlace}): the tool is not to run without it.
 */
export function refusedArg(
  schema: JsonSchema,
  args: Record<string, unknown>,
  { message, acceptsArg }: ArgSources,
): { arg: string; value: string } | undefined {
  for (const [name, property] of argsOf(schema)) {
    if (name in args) continue;
    const value = unknownPlace(name, property, message, acceptsArg);
    if (value !== undefined) return { arg: name, value };
  }
  return undefined;
}

function argsOf(schema: JsonSchema): [string, JsonSchema, boolean][] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => [name, property, required.has(name)]);
}

function findArg(
  name: string,
  property: JsonSchema,
  required: boolean,
  { message, context, producers = [], acceptsArg }: ArgSources,
): { value: unknown; fromMessage: boolean } | undefined {
  const fromContext = findInContext(name, context);
  if (fromContext !== undefined && fits(fromContext, property)) {
    return { value: fromContext, fromMessage: false };
  }
  const stated = required
    ? findInMessage(property, message) ?? findEnumByWord(name, property, message) ??
      findAcceptedPhrase(name, property, message, acceptsArg)
    : findStatedOption(name, property, message, acceptsArg);
  if (stated !== undefined) return { value: stated, fromMessage: true };
  const kept = keptPlace(name, property, message, context, acceptsArg);
  if (kept !== undefined) return { value: kept, fromMessage: false };
  const reference = required ? referenceFor(name, producers) : undefined;
  if (reference !== undefined) return { value: reference, fromMessage: false };
  const named = required ? namedEarlier(name, property, message, context) : undefined;
  return named === undefined ? undefined : { value: named, fromMessage: false };
}

/** Words for the writer's own place: "where I live", "my city", "here". */
const WRITERS_PLACE =
  /\b(?:where (?:i|we) (?:live|am|are|m|re|work|stay|m based|re based)|my (?:city|town|hometown|home town|place|location|home|area|country|neighbourhood|neighborhood)|at home|my local|local to me|(?<!\bin )here|(?:it|time) (?:for|with) (?:me|us))\b/;
/** A relative's place: "what time is it for my cousin?", "… where my sister lives", "… at my aunt's". */
const PERSONS_PLACE = /\b(?:for|where|with|at) my (\w+)\b/;

/** Whether the message asks about the writer's own place: "what time is it here?", "my local time". */
export function asksAboutWritersPlace(message: string): boolean {
  const words = tokenize(message).join(" ");
  // "… over there and here": "there" is the place said before (the planner's to find).
  return WRITERS_PLACE.test(words) && !/\bthere\b/.test(words);
}

/** A sentence saying where the writer is: "I'm in Perth", "I live in Lisbon", "we moved to Oslo". */
const LOCATES_WRITER =
  /^(?:(?:hi|hello|hey|btw|oh|ok|okay|well|fyi|by the way|actually)\s+)*(?:i|we)\s+(?:(?:m|am|re|are|live|living|stay|staying|work|currently|now|actually|just|moved|based|located|from)\s+)*(?:in|at|from|to)\s+\S|^(?:(?:hi|hello|hey)\s+)*i\s+(?:m|am)\s+\p{L}+\s+from\s+\S/u;

/** Whether the message says where the writer is ({@link LOCATES_WRITER}). */
export function locatesWriter(message: string): boolean {
  return LOCATES_WRITER.test(tokenize(message).join(" "));
}

/**
 * For a message about the writer's own place ("what time is it where I
 * live?", "… for me"), the value the arg's selective schema accepts in what
 * the writer said of it in this conversation ("I'm in Perth"), or else in
 * what the working memory keeps about them ("I live in Lyon"), the latest
 * first; for a relative's ("… for my cousin"), what was said of them.
 */
function keptPlace(
  name: string,
  property: JsonSchema,
  message: string,
  context: Record<string, unknown>,
  acceptsArg?: (name: string, value: unknown) => boolean,
): string | undefined {
  const person = PERSONS_PLACE.exec(tokenize(message).join(" "))?.[1];
  if (person !== undefined && isPersonWord(person)) {
    return placeOf(person, name, property, context, acceptsArg);
  }
  if (!asksAboutWritersPlace(message)) return undefined;
  for (const said of storedUserMessages(context).reverse()) {
    const found = locatesWriter(said)
      ? findAcceptedPhrase(name, property, said, acceptsArg)
      : undefined;
    if (found !== undefined) return found;
  }
  for (const fact of memoryStatements(context.workingMemory).reverse()) {
    // About the writer alone: "I live in Lyon", "my home is in Porto"; not "my sister lives in Perth".
    const words = tokenize(fact);
    const own =
      /^(?:i|im|we|my (?:home|hometown|address|city|town|place|location|flat|apartment|house))$/
        .test(words[0] === "my" ? words.slice(0, 2).join(" ") : words[0]);
    if (!own || words.some(isPersonWord)) continue;
    const found = findAcceptedPhrase(name, property, fact, acceptsArg);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The place the working memory or this conversation says the writer's
 * relative is in ("my cousin lives in Lima" for `cousin`), the latest first.
 */
function placeOf(
  person: string,
  name: string,
  property: JsonSchema,
  context: Record<string, unknown>,
  acceptsArg?: (name: string, value: unknown) => boolean,
): string | undefined {
  const said = [...memoryStatements(context.workingMemory), ...storedUserMessages(context)];
  for (const text of said.reverse()) {
    const words = tokenize(text);
    const i = words.indexOf(person);
    // "my cousin lives in Lima", "my cousin's flat is in Lima" (not "my cousin's friend").
    if (i !== 1 || words[0] !== "my" || (words[2] === "s" && isPersonWord(words[3] ?? ""))) {
      continue;
    }
    const found = findAcceptedPhrase(name, property, text, acceptsArg);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The user's stored messages of this conversation (`context.recentMessages`), oldest first. */
export function storedUserMessages(context: Record<string, unknown>): string[] {
  const recent = Array.isArray(context.recentMessages) ? context.recentMessages : [];
  return recent.filter((said): said is { role: string; content: string; createdAt: string } =>
    isRecord(said) && said.role === "user" && typeof said.content === "string" &&
    typeof said.createdAt === "string"
  ).sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((said) => said.content);
}

/**
 * A required arg the message points back to ("score it 91", "the status of
 * that loop"): the token matching the arg's pattern that the assistant's
 * latest reply naming one gave as the entity's id ("I started a spec
 * refinement loop with id 3f0c9a1e", "Loop 3f0c9a1e scored 72"); or, when the
 * message names no such entity at all ("record a score of 70"), the one the
 * latest reply names. None when
 * that reply names several (a listing: the planner then asks which), or the
 * message points at nothing or at another one ("the spec loop", "the other
 * loop").
 */
function namedEarlier(
  name: string,
  property: JsonSchema,
  message: string,
  context: Record<string, unknown>,
): string | undefined {
  const id = idArg(name, property);
  if (!id) return undefined;
  const { pattern, entity } = id;
  const ordinal = ORDINAL_PLACE[ordinalSaid(message, entity) ?? ""];
  // "the first one", "the other loop": the one of the replies' ids in that place, or none.
  if (ordinal !== undefined) return byPlace(ordinal, entity, pattern, context);
  const described = describedEarlier(message, entity, pattern, context);
  if (described !== undefined) return described;
  // "the non-build one": a description not understood points at none, not at the latest.
  if (describedOne(message) !== undefined) return undefined;
  // "record a score of 70" just after "I started loop 3f0c9a1e": the one the last reply named.
  const implied = !pointsBack(message, entity) && !mentions(message, entity);
  if (!implied && !pointsBack(message, entity)) return undefined;
  const recent = Array.isArray(context.recentMessages) ? context.recentMessages : [];
  const replies = recent.filter((said): said is { role: string; content: string } =>
    isRecord(said) && said.role === "assistant" && typeof said.content === "string"
  ).reverse();
  for (const said of implied ? replies.slice(0, 1) : replies) {
    const { named, all, sole } = idsIn(said.content, pattern, entity);
    // The latest reply holding any: the one it names, or, when it is the latest of all, the one a
    // listing of the entity holds ("You have 1 refinement loop: - 3f0c9a1e …") if the message
    // asks of one; else no guess.
    const listed = said === replies[0] && mentions(said.content, entity) &&
      !ASKS_OF_SEVERAL.test(message);
    if (all > 0) return all === 1 && (named.size === 1 || listed) ? sole : undefined;
  }
  return undefined;
}

/**
 * "… for the plan loop" after replies that started a plan loop and a spec
 * loop: the one id the replies name in a sentence saying "a plan … loop" (or,
 * when none does, "a … code … loop" for "the code loop"). Undefined when the
 * message describes no entity, or the replies name none or several so
 * described ("the plan loop" after two plan loops: the id is asked for).
 */
function describedEarlier(
  message: string,
  entity: string,
  pattern: RegExp,
  context: Record<string, unknown>,
): string | undefined {
  const thing = tokenize(entity.replace(/[_-]+/g, " ")).join(" ");
  const said = new RegExp(String.raw`\b(?:the|my|our|that|this)\s+((?:\w+\s+){1,2}?)${thing}\b`)
    .exec(tokenize(message).join(" "));
  const words = said?.[1].trim().split(" ").filter((word) => !RECENCY.has(word)) ?? [];
  if (words.length === 0) return undefined;
  const sentences = replySentences(context);
  const idsDescribed = (describes: RegExp) =>
    new Set(
      sentences.filter((sentence) => describes.test(tokenize(sentence).join(" ")))
        .flatMap((sentence) => [...idsIn(sentence, pattern, entity).named]),
    );
  const exactly = idsDescribed(
    new RegExp(
      String.raw`\b(?:a|an|the|your|my)\s+${words.join(" ")}\s+(?:\w+\s+){0,2}?${thing}\b`,
    ),
  );
  const loosely = (said: string) =>
    idsDescribed(
      new RegExp(
        String.raw`\b(?:a|an|the|your|my)\s+(?:\w+\s+){0,2}?${said}\s+(?:\w+\s+){0,2}?${thing}\b`,
      ),
    );
  // "the planning loop" for "a plan loop", "the specification loop" for "a spec loop".
  const ids = [exactly, loosely(words.join(" ")), loosely(words.map(wordStart).join(" "))]
    .find((found) => found.size > 0);
  return ids?.size === 1 ? [...ids][0] : undefined;
}

/** A word as a pattern for the words it starts with: "plan" for "planning" (four letters at least). */
const wordStart = (word: string) =>
  word.length > 4 ? `(?:${word}|${word.slice(0, 4)}\\w{0,2})` : word;

/**
 * The place an ordinal word points at among the ids named so far, in their
 * order; "older" and "newer" compare two only, "middle" is the second of
 * three, "previous" is the one before the latest.
 */
const ORDINAL_PLACE: Record<string, number | "other" | "older" | "newer" | "middle"> = {
  first: 0,
  "1st": 0,
  second: 1,
  "2nd": 1,
  third: 2,
  "3rd": 2,
  fourth: 3,
  "4th": 3,
  other: "other",
  last: -1,
  latest: -1,
  newest: -1,
  previous: -2,
  older: "older",
  newer: "newer",
  earlier: "older",
  later: "newer",
  earliest: 0,
  middle: "middle",
};

/**
 * The ordinal word of "the first one", "the other loop", "my second spec
 * loop", "the one I started first", "number two".
 */
function ordinalSaid(message: string, entity: string): string | undefined {
  const thing = tokenize(entity.replace(/[_-]+/g, " ")).join(" ");
  const ordinal = Object.keys(ORDINAL_PLACE).join("|");
  const said = new RegExp(
    String.raw`\b(?:the|my|our)\s+(${ordinal})\s+(?:one|(?:\w+\s+){0,2}?${thing})\b|` +
      String
        .raw`\bthe\s+(?:one|${thing})\s+(?:i|we)\s+(?:started|made|opened|began)\s+(${ordinal})\b|` +
      String.raw`\b(?:${thing}\s+)?(?:number|no)\s+(one|two|three|four|1|2|3|4)\b`,
  ).exec(tokenize(message).join(" "));
  return said?.[1] ?? said?.[2] ?? PLACE_OF_NUMBER[said?.[3] ?? ""];
}

/**
 * The id in `place` among those the recent replies name (after the entity's
 * name or "id"), in the order first named, each named after "id" in a reply
 * still among the recent messages (its start): 0 the first, -1 the latest;
 * "other" is the one of exactly two that the latest reply naming one did not
 * name, and "older" and "newer" the first and second of two, when the
 * replies hold no third. Undefined when there is no such place, or no
 * telling which.
 */
function byPlace(
  place: number | "other" | "older" | "newer" | "middle",
  entity: string,
  pattern: RegExp,
  context: Record<string, unknown>,
): string | undefined {
  const sentences = replySentences(context);
  const named = sentences.map((sentence) => [...idsIn(sentence, pattern, entity).named]);
  const ids = [...new Set(named.flat())];
  // The order is the order they were started ("… with id 3f0c9a1e"): when a start has left the
  // recent messages, which is first is not known.
  const started = sentences.flatMap((sentence) => [...idsIn(sentence, pattern, "").named]);
  if (!ids.every((id) => started.includes(id))) return undefined;
  if (typeof place === "number") return ids.at(place);
  // Of three started, the second; of any other number, no telling.
  if (place === "middle") return ids.length === 3 ? ids[1] : undefined;
  // Two in all, a listing's included: after a listing of three, "the other" could be either.
  const two = idsIn(sentences.join(" "), pattern, entity).all === 2 && ids.length === 2;
  if (!two) return undefined;
  if (place !== "other") return ids[place === "older" ? 0 : 1];
  const latest = named.findLast((each) => each.length > 0) ?? [];
  return latest.length === 1 ? ids.find((id) => id !== latest[0]) : undefined;
}

/**
 * Every id of `<entity>_id` the recent replies name (after the entity's name
 * or "id"), first named first: "status on both of them?" asks of each.
 */
export function idsNamedEarlier(
  name: string,
  property: JsonSchema,
  context: Record<string, unknown>,
): string[] {
  const id = idArg(name, property);
  if (!id) return [];
  const named = replySentences(context).flatMap((sentence) => [
    ...idsIn(sentence, id.pattern, id.entity).named,
  ]);
  return [...new Set(named)];
}

/** For an `<entity>_id` string arg with a pattern: the pattern and the entity ("loop"). */
function idArg(
  name: string,
  property: JsonSchema,
): { pattern: RegExp; entity: string } | undefined {
  if (property.type !== "string" || typeof property.pattern !== "string") return undefined;
  const pattern = safeRegExp(property.pattern);
  const entity = /^(.+?)_?[iI]d$/.exec(name)?.[1]?.toLowerCase();
  return pattern && entity ? { pattern, entity } : undefined;
}

/** The sentences of the assistant's replies in the context's recent messages. */
function replySentences(context: Record<string, unknown>): string[] {
  const recent = Array.isArray(context.recentMessages) ? context.recentMessages : [];
  return recent.flatMap((reply) =>
    isRecord(reply) && reply.role === "assistant" && typeof reply.content === "string"
      ? reply.content.split(/(?<=[.!?])\s+|\n+/)
      : []
  );
}

/** Words that point at the latest of a kind rather than describe it ("the new loop"). */
const RECENCY = new Set([
  "latest",
  "last",
  "new",
  "newest",
  "newer",
  "older",
  "previous",
  "middle",
  "earlier",
  "later",
  "current",
  "same",
  "other",
  "first",
]);

/** "number two": the place a number says. */
export const PLACE_OF_NUMBER: Readonly<Record<string, string>> = {
  one: "first",
  1: "first",
  two: "second",
  2: "second",
  three: "third",
  3: "third",
  four: "fourth",
  4: "fourth",
};

/**
 * "the non-build one": a thing described by words before "one" that say no
 * place among the things named ("the new one" and "the other one" do), its
 * words lower-cased; else undefined.
 */
export function describedOne(message: string): string | undefined {
  const said = tokenize(message).join(" ");
  // "whichever one I made …": a choice among the loops, read only where a place is said with it.
  const whichever = /\b(?:whichever|which ever)\s+(?:one|loop)\b/.exec(said);
  if (whichever) return whichever[0];
  const one = /\b(?:the|my|our|that|this)\s+((?:\w+\s+){1,2})one\b/.exec(said);
  return one && one[1].trim().split(" ").some((word) => !RECENCY.has(word)) ? one[0] : undefined;
}

/** Words that ask of several things: "are all of them done?". */
const ASKS_OF_SEVERAL = /\b(?:them|they|all|both|each|those)\b/i;

/** Whether the message names the entity at all ("the spec loop", "another loop"). */
function mentions(message: string, entity: string): boolean {
  const thing = tokenize(entity.replace(/[_-]+/g, " ")).join(" ");
  return new RegExp(String.raw`\b${thing}s?\b`).test(tokenize(message).join(" "));
}

/**
 * The tokens of `text` matching `pattern`: how many distinct ones, those
 * right after the entity's name or "id" ("loop 3f0c9a1e", "id 3f0c9a1e"),
 * and the one when there is only one.
 */
function idsIn(
  text: string,
  pattern: RegExp,
  entity: string,
): { named: Set<string>; all: number; sole?: string } {
  const tokens = text.split(/\s+/).map((token) => token.replace(/^\W+|\W+$/g, ""));
  const names = new Set(["id", ...tokenize(entity.replace(/[_-]+/g, " "))]);
  const matching = (token: string) =>
    token !== "" && token.length <= MAX_TOKEN && pattern.test(token);
  const named = new Set(
    tokens.filter((token, i) =>
      matching(token) && names.has(tokens[i - 1]?.toLowerCase().replace(/s$/, "") ?? "")
    ),
  );
  const all = new Set(tokens.filter(matching));
  return { named, all: all.size, sole: all.size === 1 ? [...all][0] : undefined };
}

/** Whether the message points back at the one just named: "it", or "that/the (latest) <entity>". */
function pointsBack(message: string, entity: string): boolean {
  const words = tokenize(message).join(" ");
  if (/\b(?:it|that one|this one)\b/.test(words)) return true;
  const thing = tokenize(entity.replace(/[_-]+/g, " ")).join(" ");
  return new RegExp(
    String
      .raw`\b(?:that|this|the|my|our)\s+(?:(?:latest|last|new|newest|current|same)\s+)?${thing}\b`,
  ).test(words);
}

/**
 * An optional arg's value when the message states one unambiguously: an enum
 * value it mentions, a token matching the arg's pattern, a phrase the tool's
 * schema accepts, or a number said with the arg's name ("limit 3", "a limit
 * of 3"). Other numbers are left alone: a message holds many, and an optional
 * one has a sensible default.
 */
function findStatedOption(
  name: string,
  property: JsonSchema,
  message: string,
  acceptsArg?: (name: string, value: unknown) => boolean,
): unknown {
  if (Array.isArray(property.enum)) return findEnumValue(property.enum, message);
  if (property.type === "integer" || property.type === "number") {
    return namedNumber(name, property, message);
  }
  if (property.type === "string" && typeof property.pattern === "string") {
    return findInMessage(property, message);
  }
  return findAcceptedPhrase(name, property, message, acceptsArg);
}

/** A number in range said right after the arg's name: "limit 3", "max_results: 20", "a limit of 5". */
function namedNumber(name: string, property: JsonSchema, message: string): number | undefined {
  const words = name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase()
    .trim().split(/\s+/).map(escapeRegExp)
    .join(String.raw`[\s_-]+`);
  const said = new RegExp(String.raw`\b${words}\s*(?:of|=|:|to|is)?\s*(-?\d+(?:\.\d+)?)\b`, "i")
    .exec(message);
  if (!said) return undefined;
  const value = Number(said[1]);
  return fitsNumber(value, property) ? value : undefined;
}

/** Whether the number fits the arg's schema: an integer where it asks one, within its bounds. */
function fitsNumber(value: number, property: JsonSchema): boolean {
  return (property.type !== "integer" || Number.isInteger(value)) &&
    (typeof property.minimum !== "number" || value >= property.minimum) &&
    (typeof property.maximum !== "number" || value <= property.maximum);
}

/**
 * The args once for each value of a list the message states for a read's
 * free-text arg ("the time in Lima, Cairo and Seoul": three places), when
 * the value found is one of such a list; otherwise just `args`. Only an arg
 * of the kind {@link findAcceptedPhrase} finds is spread this way, over values
 * joined by commas, "and" or "or" ("in Tokyo and in London"), and over those
 * of another part that `asksAgain` says asks for the same tool ("The time in
 * Cairo, please. And what time is it in Quito?"). Where a part asks for it, a
 * place named in a part that does not ("flying from Oslo, what time is it in
 * Lima?") or about the writer ("I live in Berlin, …") is left out.
 */
export function eachStatedValue(
  schema: JsonSchema,
  args: Record<string, unknown>,
  { message, acceptsArg }: ArgSources,
  asksAgain: (part: string) => boolean = () => false,
): Record<string, unknown>[] {
  for (const [name, property] of argsOf(schema)) {
    if (Array.isArray(property.enum) || typeof property.pattern === "string") continue;
    const value = args[name];
    if (typeof value !== "string") continue;
    const lists = statedLists(name, property, message, acceptsArg);
    const own = lists.find(({ phrases }) => phrases.includes(value));
    if (!own) continue;
    const aside = asides(message);
    const raw = message.split(/\s+/);
    const ownPart = partAround(raw, own.start);
    // In the part of the value found, only its list may be asked ("… in Lagos for my colleague Jordan").
    const asked = lists.map(({ start }) => {
      const part = partAround(raw, start);
      const another = part.start === ownPart.start && start !== own.start;
      return !another && !aside[start] && asksAgain(part.text);
    });
    // The value found stands when no part asks for the tool with a value of its own.
    const values: string[] = [];
    lists.forEach((list, i) => {
      if (asked[i] || (list === own && !asked.includes(true))) {
        list.phrases.forEach((phrase) => addOnce(values, phrase));
      }
    });
    if (values.length > 1 || values[0] !== value) {
      return values.map((phrase) => ({ ...args, [name]: phrase }));
    }
  }
  return [args];
}

/**
 * A write's args once for each value of an enum arg the message lists, each
 * in a part of its own ("start a spec loop and a build code loop": two); just
 * `args` when a later part asks for something else ("… and score the plan
 * loop 80" has a verb of its own) or the list names one value.
 */
export function eachListedOption(
  schema: JsonSchema,
  args: Record<string, unknown>,
  message: string,
): Record<string, unknown>[] {
  const parts = message.split(OPTION_JOINER).filter((part) => /\p{L}/u.test(part));
  if (parts.length < 2) return [args];
  for (const [name, property] of argsOf(schema)) {
    if (!Array.isArray(property.enum) || !(name in args)) continue;
    const valueWords = new Set(property.enum.flatMap((value) => tokenize(String(value))));
    const values: unknown[] = [];
    for (const [i, part] of parts.entries()) {
      const value = findEnumByWord(name, property, part);
      if (value === undefined) continue;
      if (i > 0 && tokenize(part).some((word) => !valueWords.has(word) && isKnownVerb(word))) {
        return [args];
      }
      if (!values.includes(value)) values.push(value);
    }
    if (values.length > 1 && values.includes(args[name])) {
      return values.map((value) => ({ ...args, [name]: value }));
    }
  }
  return [args];
}
const OPTION_JOINER = /\s*(?:[,;&]|\band\b|\bplus\b|\bas well as\b)\s*/i;

/** The part (between commas or sentence ends) of the message's `raw` words holding the `index`th. */
function partAround(raw: readonly string[], index: number): { text: string; start: number } {
  const ends = (i: number) => /[,.;:!?]$/.test(raw[i]);
  let start = index;
  while (start > 0 && !ends(start - 1)) start--;
  let end = index;
  while (end < raw.length - 1 && !ends(end)) end++;
  return { text: raw.slice(start, end + 1).join(" "), start };
}

/** An arg whose name or description says it is a place. */
const PLACE_ARG = /\b(?:place|city|country|location|time[ _]?zone|region)\b/i;
/** Words that name where something is asked about: "the time in …", "… at …". */
const PLACE_PREPOSITION = /^(?:in|at)$/i;
/**
 * Where a comparison names its places: "is Oslo ahead of Lima?", "… behind Lima", "… than Lima",
 * "which is later, Rome or Cairo?", "hours between Oslo and Lima".
 */
const COMPARED_PLACE = /^(?:is|of|than|behind|ahead|later|earlier|from|or|between|and)$/i;

/**
 * A capitalised name (one to three words) after "in" or "at" in the ask (or
 * where a comparison names its places: "is Arsenal ahead of Chelsea?"),
 * which a place arg's schema refuses: "what time is it in Gotham City?". The
 * writer is told the place is not known, instead of the tool answering for no
 * place at all. Not in a part about the writer ("I'm at Starbucks, what time is it?").
 */
function unknownPlace(
  name: string,
  property: JsonSchema,
  message: string,
  acceptsArg?: (name: string, value: unknown) => boolean,
): string | undefined {
  if (!acceptsArg || property.type !== "string") return undefined;
  if (!PLACE_ARG.test(`${name} ${property.description ?? ""}`)) return undefined;
  const typed = phraseWords(message);
  // "is atlantis ahead of lima?", "atlantis time?": a writer in lower case names places so (not
  // after "in": "is it too dark in here?").
  const words = phraseWords(namesCapitalised(message));
  const aside = asides(message);
  const comparing = COMPARING.test(message);
  const names = (word: string) =>
    PLACE_PREPOSITION.test(word) || (comparing && COMPARED_PLACE.test(word));
  const capitalised = (word = "", i = 0) =>
    /^\p{Lu}/u.test(word) && (!PLACE_PREPOSITION.test(words[i - 1] ?? "") || typed[i] === word);
  // "Atlantis time?", "Atlantis clock", "Atlantis hour": the name that opens the message.
  let opening = 0;
  while (
    opening < 3 && capitalised(words[opening], opening) &&
    !STOP_WORDS.has(typed[opening].toLowerCase())
  ) opening++;
  if (opening > 0 && /^(?:time|clock|hour)$/i.test(words[opening] ?? "")) {
    const named = typed.slice(0, opening).join(" ");
    if (!acceptsArg(name, named)) return named;
  }
  for (let i = 0; i + 1 < words.length; i++) {
    if (!names(words[i]) || aside[i] !== ASKED) continue;
    let end = i + 1;
    while (end < words.length && end <= i + 3 && capitalised(words[end], end)) end++;
    const named = typed.slice(i + 1, end).join(" ");
    if (named !== "" && !acceptsArg(name, named)) return named;
  }
  return undefined;
}

/** Words no schema should accept: when one is accepted, the arg takes free text, not a stated value. */
const PROBES = ["zzqxv", "the"];

/**
 * The longest phrase of the message (one to four words, kept as written)
 * that the tool's own schema accepts for a string arg, provided the schema is
 * selective — it refuses {@link PROBES}. "What time is it in New York?" gives
 * "New York" to a time-zone arg that knows city names. A phrase that is
 * context rather than the ask — in a part about the writer ("I'm based in
 * Berlin; what's the time in Lima?"), or right after "not" ("Perth
 * Australia, not Scotland") — is taken only when there is no other; a name
 * after a word for a person ("my friend Jordan", "a client called Chad") only
 * after that.
 */
function findAcceptedPhrase(
  name: string,
  property: JsonSchema,
  message: string,
  acceptsArg?: (name: string, value: unknown) => boolean,
): string | undefined {
  if (!acceptsArg || property.type !== "string") return undefined;
  if (PROBES.some((probe) => acceptsArg(name, probe))) return undefined;
  const words = phraseWords(message);
  const aside = asides(message);
  for (const tier of [ASKED, CONTEXT, NAME]) {
    for (let size = 4; size >= 1; size--) {
      for (let start = 0; start + size <= words.length; start++) {
        if (aside[start] !== tier) continue;
        const phrase = acceptedAt(words, start, size, (text) => acceptsArg(name, text));
        if (phrase !== undefined) return phrase;
      }
    }
  }
  return undefined;
}

/** First-person words a part about the writer opens with. */
const WRITER = /^(?:i|i'm|im|i've|i'd|i'll|my|we|we're|our)$/;
/** Words of a first-person part that asks for what it names ("I meant Perth", "I need Lima"). */
const CORRECTING = /^(?:meant|mean|want|wanted|need|needed|asked|said)$/;

/** Verbs of someone speaking or asking, after their name. */
const SPEAKING =
  /^(?:asked|asks|said|says|wants|wanted|told|tells|called|calls|wonders|wondered|texted|texts|messaged|mentioned|mentions|thinks|thought|sends|sent)$/;

/** How much a word of the message is the ask: asked, context, or a person's name. */
const ASKED = 0;
const CONTEXT = 1;
const NAME = 2;

/**
 * For each word of the message, whether it is an aside: {@link CONTEXT} in a
 * part (between commas or sentence ends) about the writer ("I live in
 * Berlin", "my office is in Tokyo") that is not a correction or a wish ("I
 * meant Perth", "I need Lima"), or right after "not"; {@link NAME} right after
 * a word for a person; else {@link ASKED} (0).
 */
function asides(message: string): number[] {
  const raw = message.split(/\s+/);
  const plain = raw.map((token) =>
    token.replaceAll("\u2019", "'").toLowerCase().replace(/^[^\p{L}']+|[^\p{L}']+$/gu, "")
  );
  const aside: number[] = [];
  for (let start = 0; start < raw.length;) {
    let end = start + 1;
    while (end < raw.length && !/[,.;:!?]$/.test(raw[end - 1])) end++;
    const part = plain.slice(start, end).flatMap((word) => word.split(/(?=')/));
    // "I meant Perth": a correction names what is meant, not where the writer is.
    const writerPlace = WRITER.test(plain[start]) && !part.some((word) => CORRECTING.test(word));
    // Names within the part only: "My boss, Lima, …" names no person Lima.
    const partWords = plain.slice(start, end);
    for (let i = start; i < end; i++) {
      const context = writerPlace || plain[i - 1] === "not";
      // "Virginia asked me what time it is in Lima": the part's subject, who speaks, is a person.
      const speaker = i === start && /^\p{Lu}/u.test(raw[i]) && SPEAKING.test(plain[i + 1] ?? "");
      const named = speaker || namesPerson(partWords, i - start);
      aside.push(named ? NAME : context ? CONTEXT : ASKED);
    }
    start = end;
  }
  return aside;
}

/**
 * Most values of a message read for lists: a read runs for a few of them at
 * most (the planner's `maxTools`), and a message naming thousands is no list
 * to answer ("Oslo, Lima, " repeated).
 */
const MAX_STATED = 12;

/** What may stand between two values of one list, after a comma or instead of one. */
const LIST_JOINER =
  /^(?:(?:and|or|&|plus|vs|versus|than|compared (?:to|with))(?: also)?(?: (?:in|at|for))?)?$/;
/**
 * In a message that compares ("how many hours ahead is Tokyo from London?",
 * "… behind London is New York?", "is Berlin ahead of Lisbon?", "… ahead is
 * Tokyo of London?"), "from", "of", "is", "are" and "ahead of" / "behind"
 * with "of", "than" or "from" join too.
 */
const COMPARING = /\b(?:ahead|behind|front|apart|between|difference|gap|earlier|later)\b/i;
const COMPARED =
  /^(?:from|to|of|is|are|in front of|(?:is|are) how (?:(?:many|much) hours|far) (?:ahead|behind|in front)(?: (?:of|than|from))?|(?:ahead|behind)(?: (?:of|than|from))?|(?:ahead|behind)(?: of)? or (?:ahead|behind)(?: (?:of|than|from))?)$/;

/**
 * The phrases of the message the tool's selective schema accepts, left to
 * right, none overlapping another, each the longest at its place; grouped in
 * lists of those joined by {@link LIST_JOINER} (or "from", "is", "are" where
 * the message compares: {@link COMPARING}), a value repeating another's
 * words ("Paris" beside "Paris, France") kept once, as its longer form. Each
 * list with the index of its first word.
 */
function statedLists(
  name: string,
  property: JsonSchema,
  message: string,
  acceptsArg?: (name: string, value: unknown) => boolean,
): { phrases: string[]; start: number }[] {
  if (!acceptsArg || property.type !== "string") return [];
  if (PROBES.some((probe) => acceptsArg(name, probe))) return [];
  const raw = message.split(/\s+/);
  const words = phraseWords(message);
  const lists: { phrases: string[]; start: number }[] = [];
  const comparing = COMPARING.test(message);
  let end = -1;
  for (let start = 0, found = 0; start < words.length && found < MAX_STATED;) {
    let size = 4;
    let phrase: string | undefined;
    for (; size >= 1 && phrase === undefined; size--) {
      phrase = acceptedAt(words, start, size, (text) => acceptsArg(name, text));
    }
    if (phrase === undefined) {
      start += 1;
      continue;
    }
    found++;
    const between = words.slice(end, start).join(" ").toLowerCase();
    const joiner = COMPARED.test(between) && comparing ? "" : between;
    const joined = end > 0 && LIST_JOINER.test(joiner) &&
      (between !== "" || /[,;/]$/.test(raw[end - 1]));
    if (!joined) lists.push({ phrases: [], start });
    addOnce(lists[lists.length - 1].phrases, phrase);
    end = start + size + 1;
    start = end;
  }
  return lists;
}

/** Adds `phrase` to `list` unless it repeats the words of one there; a longer form replaces it. */
function addOnce(list: string[], phrase: string): void {
  const wordsOf = (text: string) => text.toLowerCase().split(" ");
  const named = wordsOf(phrase);
  const shorter = list.findIndex((seen) => wordsOf(seen).every((word) => named.includes(word)));
  if (shorter >= 0) list[shorter] = phrase;
  else if (!list.some((seen) => named.every((word) => wordsOf(seen).includes(word)))) {
    list.push(phrase);
  }
}

/**
 * The message's words as written (its first {@link MAX_PHRASE_WORDS}),
 * without the punctuation around them.
 */
function phraseWords(message: string): string[] {
  // "Toronto's time": the name without its possessive.
  return message.split(/\s+/, MAX_PHRASE_WORDS).map((word) =>
    word.replace(/['’]s$/u, "").replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")
  );
}

/**
 * Most words of a message read for phrases a schema accepts: each is tried at
 * four lengths against the tool's own check, and a value said past the first
 * few hundred words is not what a request asks about.
 */
const MAX_PHRASE_WORDS = 400;

/** The `size` words from `start` as one phrase, when they are words and `accepts` takes it. */
function acceptedAt(
  words: readonly string[],
  start: number,
  size: number,
  accepts: (phrase: string) => boolean,
): string | undefined {
  const part = words.slice(start, start + size);
  if (part.length < size || part.some((word) => word === "")) return undefined;
  const phrase = part.join(" ");
  return phrase.length <= MAX_TOKEN && accepts(phrase) ? phrase : undefined;
}

/**
 * A reference to the output of the latest producer that has `name` (or a
 * spelling of it) in its output schema — or, for `<entity>_id`, its `id` when
 * the producer's tool name mentions the entity (`loop_id` ← the `id` of
 * `initialize_refinement_loop`).
 */
export function referenceFor(
  name: string,
  producers: readonly Producer[],
): { $ref: string } | undefined {
  const names = spellings(name);
  const entity = /^(.+?)_?[iI]d$/.exec(name)?.[1]?.toLowerCase();
  for (const producer of [...producers].reverse()) {
    const properties = (producer.outputSchema?.properties ?? {}) as Record<string, unknown>;
    const key = names.find((candidate) => candidate in properties) ??
      (entity && "id" in properties && producer.name.toLowerCase().includes(entity)
        ? "id"
        : undefined);
    if (key !== undefined) {
      return {
        $ref: `/steps/${producer.position}/output/${
          key.replaceAll("~", "~0").replaceAll("/", "~1")
        }`,
      };
    }
  }
  return undefined;
}

/** Spellings of an arg name to look for: as is, snake_case and camelCase. */
function spellings(name: string): string[] {
  const snake = name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
  const camel = snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return [...new Set([name, snake, camel])];
}

function findInContext(name: string, context: Record<string, unknown>): unknown {
  const names = spellings(name);
  for (const key of names) if (context[key] !== undefined) return context[key];
  // `<entity>_id` also matches `id` inside an object stored under a key naming the entity.
  const entity = /^(.+?)_?[iI]d$/.exec(name)?.[1]?.toLowerCase();
  for (const [key, value] of Object.entries(context)) {
    if (!isRecord(value)) continue;
    for (const inner of names) if (value[inner] !== undefined) return value[inner];
    if (entity && key.toLowerCase().includes(entity) && value.id !== undefined) return value.id;
  }
  return undefined;
}

function findInMessage(property: JsonSchema, message: string): unknown {
  if (Array.isArray(property.enum)) return findEnumValue(property.enum, message);
  if (property.type === "string" && typeof property.pattern === "string") {
    const pattern = safeRegExp(property.pattern);
    if (!pattern) return undefined;
    return message.split(/\s+/).map((token) => token.replace(/^\W+|\W+$/g, ""))
      .find((token) => token !== "" && token.length <= MAX_TOKEN && pattern.test(token));
  }
  if (property.type === "integer" || property.type === "number") {
    for (const match of message.matchAll(/(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])/g)) {
      const value = Number(match[0]);
      if (fitsNumber(value, property)) return value;
    }
    // No number in digits: one in words ("score it sixty-two").
    return spelledNumbersIn(message).map((found) => found.value)
      .find((value) => fitsNumber(value, property));
  }
  return undefined;
}

/** The enum value the message mentions; the longest wins ("build plan" over "plan"). */
function findEnumValue(values: unknown[], message: string): unknown {
  const text = ` ${tokenize(message).join(" ")} `;
  let best: unknown = undefined;
  let bestLength = 0;
  for (const value of values) {
    if (typeof value !== "string") continue;
    const phrase = tokenize(value).join(" ");
    if (phrase && phrase.length > bestLength && text.includes(` ${phrase} `)) {
      best = value;
      bestLength = phrase.length;
    }
  }
  return best;
}

/**
 * The enum value the message names by a word said right before what the arg
 * is the type of or "one", or ending the message after "for", the thing or a
 * determiner: for `loop_type`, "a code loop", "the coding one" and "a loop for
 * my code" are `build_code`, "a planning one" is `plan` (the value all of
 * whose words are said), "a build plan loop" is `build_plan` (the fuller of
 * two), while "a build loop" could be either and "a loop for the dress code
 * memo" names no type. Words are compared by their English stems, a value's
 * word may be said in full ("specification" for `spec`) and a value of
 * several words as one ("buildplan"). Else the one value of several words the
 * message says ("a loop for build plan"). For a required arg only: a word in
 * passing should not set an option.
 */
function findEnumByWord(name: string, property: JsonSchema, message: string): unknown {
  const entity = /^(.+?)_(?:type|kind|mode|category)$/.exec(name)?.[1];
  if (!Array.isArray(property.enum) || !entity) return undefined;
  const values = property.enum.filter((value): value is string => typeof value === "string");
  const wordsOf = values.map((value) => tokenize(value).map(stemEnglish));
  const tokens = tokenize(message);
  const said = tokens.flatMap((token) =>
    wordsOf.find((words) => words.length > 1 && words.join("") === token) ?? [stemEnglish(token)]
  );
  const thing = stemEnglish(entity.replace(/_/g, " ").split(" ").at(-1)!.toLowerCase());
  const last = said.findLastIndex((word) => !COURTESY.has(word));
  const before = said.filter((_, i) =>
    said[i + 1] === thing || ONE_OF_A_KIND.has(said[i + 1]) ||
    i === last && (i === 0 || ["for", thing, "my", "our", "a", "an", "the"].includes(said[i - 1]))
  );
  const saysWord = (word: string, among: readonly string[]) =>
    among.some((other) => other === word || word.length >= 4 && other.startsWith(word));
  const named = values.flatMap((value, i) => {
    const by = wordsOf[i].filter((word) => saysWord(word, before));
    const unique = by.some((word) => wordsOf.filter((other) => other.includes(word)).length === 1);
    const whole = wordsOf[i].every((word) => saysWord(word, said));
    return by.length > 0 && (unique || whole) ? [{ value, whole, size: wordsOf[i].length }] : [];
  });
  const fullest = named.filter((one) => one.whole).sort((a, b) => b.size - a.size);
  if (fullest.length > 1 && fullest[0].size === fullest[1].size) return undefined;
  if (fullest.length > 0 || named.length > 0) {
    return fullest[0]?.value ?? (named.length === 1 ? named[0].value : undefined);
  }
  // "build code": a value of several words, said as words.
  const phrase = ` ${said.join(" ")} `;
  const spelled = values.filter((_, i) =>
    wordsOf[i].length > 1 && phrase.includes(` ${wordsOf[i].join(" ")} `)
  );
  return spelled.length === 1 ? spelled[0] : undefined;
}

/** Words after a type that stand for the thing: "the code one", "the planning kind". */
const ONE_OF_A_KIND = new Set(["one", "kind", "type", "sort"]);

/** Words of courtesy a message may end with ("… for my code, thanks"), as English stems. */
const COURTESY = new Set(["pleas", "thank", "thx", "you"]);

/** A cheap pre-check that a context value has the schema's type; the executor parses for real. */
function fits(value: unknown, property: JsonSchema): boolean {
  if (Array.isArray(property.enum)) return property.enum.includes(value);
  switch (property.type) {
    case "string":
      return typeof value === "string";
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return isRecord(value);
    default:
      return true;
  }
}

/** Longest message token tried against a pattern. */
const MAX_TOKEN = 64;

/**
 * The schema's pattern as a RegExp, unless it could backtrack catastrophically
 * (a quantified group that itself holds a quantifier, or a back-reference):
 * schemas may come from remote MCP servers, and the message from anyone.
 */
export function safeRegExp(pattern: string): RegExp | undefined {
  if (pattern.length > 200 || /\([^)]*[*+{][^)]*\)\s*[*+{?]|\\[1-9]/.test(pattern)) {
    return undefined;
  }
  try {
    return new RegExp(pattern);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
