/**
 * The offline default planner: no model, so it understands words, not
 * meaning. It reads the message (`request_reading.ts`: its clauses, the verb
 * each opens with, whether it asks, questions, states or greets), then:
 * "remember that …", "forget …" and "erase this chat" plan the
 * memory tools (`memory_intents.ts`); "what can you do?" and a question about
 * what was said earlier or what the memory holds plan only the reply; a
 * message is read with the ones before it (`laterTurn`: "and in Lima?" asks
 * the latest question again, "is that ahead of Lisbon?" both, "is it done?"
 * the state of the loop just named, "75 now" its score, "actually it's blue"
 * corrects the fact just kept), and "there" takes the place an earlier
 * sentence names; anything else plans the tools the
 * message asks for or is about (`tool_choice.ts`: a write needs a verb that
 * asks for it and what it acts on), ranked by lexical similarity (hashing
 * vectors) between the message and each tool's name and description, with
 * args filled from the context and the message (`arg_filler.ts`). It ends
 * with `finalize_summary` when that tool is offered, and when it planned
 * nothing it leaves the reply a note (`planner_notes.ts`): what it can do
 * instead, or what a tool asked for still needs. In a later round it has
 * nothing to add (it cannot read results): it asks for the reply, or answers
 * [] — except in a refinement round, where it plans afresh.
 */
import type { ActionResult, MCPRequest, PlannedAction, ToolMetadata } from "../contracts.ts";
import { hashingVector } from "../text/hashing_vector.ts";
import { asTyped, spelledOut } from "../text/chat_spelling.ts";
import { afterTakingBack, letsGo } from "../text/taking_back.ts";
import { cosine, escapeRegExp, stem, tokenize } from "../text/words.ts";
import { stemEnglish } from "../text/english_stemmer.ts";
import type { PlanInput, Planner, PlannerTool } from "../ports.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import {
  asksWhatIsRemembered,
  recallMemory,
  recallQuestion,
  recallStatements,
  withoutMemoryQuestion,
} from "../tools/recall.ts";
import { memoryStatements } from "../memory/working_memory.ts";
import { amendedFact, clip, memoryAskEnds, memoryIntent } from "./memory_intents.ts";
import {
  asksAnotherTime,
  asksForCapabilities,
  capabilitiesNote,
  greetingNote,
  LET_GO_NOTE,
  type MissingArgs,
  missingArgsNote,
  ONLY_NOW_NOTE,
  REMARK_NOTE,
  statementNote,
  toolsAboutNote,
  UNKNOWN_ABOUT_YOU_NOTE,
  unservedNote,
} from "./planner_notes.ts";
import {
  asks,
  asksRepeat,
  asksStateOfEarlier,
  asksWhatRuns,
  comparesWithEarlier,
  followsUp,
  type MessageReading,
  namesOnly,
  opensWithGreeting,
  readMessage,
} from "./request_reading.ts";
import { scoreSaid } from "./score_said.ts";
import { pointsThere, thereBefore } from "./pointing_there.ts";
import {
  asksAboutWritersPlace,
  describedOne,
  idsNamedEarlier,
  locatesWriter,
  PLACE_OF_NUMBER,
  storedUserMessages,
} from "./arg_filler.ts";
import { chooseTools, type ToolChoice } from "./tool_choice.ts";
import { argProperties, toolProfile } from "./tool_profile.ts";

/** Tunables of the heuristic planner. */
export interface HeuristicPlannerOptions {
  /** Lowest similarity for a read to be planned at all. */
  minScore?: number;
  /** Keep reads scoring at least this fraction of the best read's score. */
  relativeScore?: number;
  /** Most tools besides `finalize_summary`. */
  maxTools?: number;
}

/** Longest note for the reply (`finalize_summary`'s `instructions` allow 2,000 characters). */
const MAX_NOTE = 2_000;

/** Plans by reading the message and matching it to the tools (see the module doc). */
export class HeuristicPlanner implements Planner {
  readonly #minScore: number;
  readonly #relativeScore: number;
  readonly #maxTools: number;
  readonly #toolVectors = new Map<string, { text: string; vector: number[] }>();

  constructor(
    { minScore = 0.05, relativeScore = 0.75, maxTools = 4 }: HeuristicPlannerOptions = {},
  ) {
    this.#minScore = minScore;
    this.#relativeScore = relativeScore;
    this.#maxTools = maxTools;
  }

  plan(
    { request, context, tools, round = 1, results = [], feedback }: PlanInput,
  ): Promise<PlannedAction[]> {
    const offersFinalize = tools.some((tool) => tool.name === FINALIZE_TOOL);
    if (round > 1 && !feedback) {
      const replied = results.some((result) => result.tool === FINALIZE_TOOL);
      return Promise.resolve(offersFinalize && !replied ? [{ tool: FINALIZE_TOOL, args: {} }] : []);
    }
    const typed = plainSpaces(request.messages[request.messages.length - 1]?.content ?? "");
    const written = spelledOut(typed);
    const { steps: read, note } = this.#firstRound(written, { request, context, tools, results });
    const placed = this.#placedThere(read, typed, { request, context, tools });
    const steps = placed.map((step) => keptAsTyped(step, tools, typed));
    return Promise.resolve(
      offersFinalize
        ? [...steps, { tool: FINALIZE_TOOL, args: note ? { instructions: fitNote(note) } : {} }]
        : steps,
    );
  }

  /** The steps a message asks for, and a note for the reply when they alone do not say enough. */
  #firstRound(
    written: string,
    { request, context, tools, results }: Pick<PlanInput, "request" | "context" | "tools"> & {
      results: readonly ActionResult[];
    },
  ): Reply {
    const earlier = earlierUserMessages(request, context);
    const previous = earlier.at(-1);
    const letGo = letsGo(written);
    if (letGo && !clearsWhatWasListed(written, tools, previous)) {
      return { steps: [], note: letGo === "drops" ? LET_GO_NOTE : greetingNote(written) };
    }
    // "never mind. remember that …", "what have you saved about me? And the time in Oslo?"
    const instead = afterTakingBack(written);
    const message = withoutMemoryQuestion(instead);
    const verbs = toolVerbs(tools);
    const choose = this.#chooser(context, tools);
    const beside = this.#memoryBeside(message, {
      tools,
      previous,
      verbs,
      choose,
      steps: results.length,
    });
    if (beside) return { steps: beside };
    const memory = memoryStatements(context.workingMemory);
    const intent = memoryIntent(message, tools, { previous, memory });
    if (intent) return { steps: [intent] };
    const reading = readMessage(message, { verbs });
    const amended = reading.kind !== "request" && amendedFact(message, tools, previous);
    if (amended) return { steps: amended };
    if (asksForCapabilities(message)) {
      return capabilitiesReply(
        message,
        tools,
        (text) => choose(text, readMessage(text, { verbs }), results.length),
      );
    }
    const about = toolsAboutNote(message, tools);
    if (about) return { steps: [], note: about };
    // The reply brings back what was said earlier, or what the memory holds (see `recall.ts`).
    if (recallQuestion(message) || asksWhatIsRemembered(message)) return { steps: [] };
    const read = planRead(message, reading, {
      earlier,
      takenBack: written.slice(0, written.length - instead.length),
      tools,
      verbs,
      choose,
      steps: results.length,
      context,
    });
    if (read) return read;
    const answered = recallStatements(message, context).length > 0 ||
      recallMemory(written, context).length > 0;
    if (answered) return { steps: [] };
    return {
      steps: [],
      note: nothingPlannedNote(reading, tools, { tookBack: message !== written, message }),
    };
  }

  /**
   * A fact to remember that says "there" ("remember that I live there") with
   * the place the message's read took ("what time is it in Berlin and …"),
   * or else the one the message before asked about ("time in Seoul", then
   * "remember that my client is there"): "I live in Berlin".
   */
  #placedThere(
    steps: PlannedAction[],
    typed: string,
    { request, context, tools }: Pick<PlanInput, "request" | "context" | "tools">,
  ): PlannedAction[] {
    const at = steps.findIndex((step) =>
      step.tool === "remember" && typeof step.args.fact === "string" &&
      THERE_PLACE.test(step.args.fact)
    );
    if (at < 0) return steps;
    const previous = earlierUserMessages(request, context).at(-1);
    const choose = this.#chooser(context, tools);
    const verbs = toolVerbs(tools);
    const placeIn = (text: string, planned: readonly PlannedAction[]) =>
      planned.flatMap((step) => Object.values(step.args)).find((value): value is string =>
        typeof value === "string" &&
        new RegExp(String.raw`\b(?:in|at|to|from)\s+${escapeRegExp(value)}\b`, "i").test(text)
      );
    const place = placeIn(typed, steps) ?? (previous === undefined ? undefined : placeIn(
      previous,
      choose(previous, readMessage(previous, { verbs }), 0).plan,
    ));
    if (place === undefined) return steps;
    // "going there" is "going to Paris"; "lives there", "lives in Paris".
    const fact = clip((steps[at].args.fact as string).replace(
      THERE_PLACE,
      (_there, offset: number, text: string) =>
        `${MOVING.test(text.slice(0, offset)) ? "to" : "in"} ${place}`,
    ));
    return steps.map((step, i) => i === at ? { ...step, args: { ...step.args, fact } } : step);
  }

  /**
   * A memory ask and another request in one message, either first: "remember
   * that … and list my loops", "what time is it in Paris? Also delete this chat".
   */
  #memoryBeside(
    message: string,
    { tools, previous, verbs, choose, steps }: Rechoosing & { previous?: string },
  ): PlannedAction[] | undefined {
    return this.#memoryThenMore(
      message,
      tools,
      previous,
      verbs,
      (text, reading, argsInWhole) =>
        choose(text, reading, steps + 1, argsInWhole ? message : undefined),
    ) ?? this.#moreThenMemory(message, tools, verbs, (text, reading) =>
      choose(text, reading, steps));
  }

  /**
   * A memory ask, then another ask the tools serve: "forget my old address and
   * list my loops" (a rest no tool serves is part of the fact: "remember that
   * my kids play and read a lot"). `choose` plans the rest.
   */
  #memoryThenMore(
    message: string,
    tools: readonly PlannerTool[],
    previous: string | undefined,
    verbs: ReadonlySet<string>,
    choose: (text: string, reading: MessageReading, argsInWhole: boolean) => ToolChoice,
  ): PlannedAction[] | undefined {
    for (const { ask, rest } of memoryAskEnds(message)) {
      const reading = readMessage(rest, { verbs });
      const [opening] = reading.clauses;
      if (!opening || !(opening.verb || asks(opening.words))) continue;
      const first = memoryIntent(ask, tools, { previous });
      if (!first) continue;
      const second = memoryIntent(rest, tools);
      if (second) return [first, second];
      // "…lives in Perth, and tell me the time there" (or "here"): the place is in the part before.
      const { plan } = choose(rest, reading, /\b(?:there|here)\b/i.test(rest));
      // A rest that no tool can run yet is part of the fact ("…and record scores on Fridays").
      if (plan.length > 0) return [first, ...plan.slice(0, this.#maxTools - 1)];
    }
    return undefined;
  }

  /**
   * A request the tools serve, then a memory ask: "what time is it in Oslo,
   * and remember that I'm flying there in May"; "list my loops. Also delete
   * this chat". `choose` plans the request.
   */
  #moreThenMemory(
    message: string,
    tools: readonly PlannerTool[],
    verbs: ReadonlySet<string>,
    choose: (text: string, reading: MessageReading) => ToolChoice,
  ): PlannedAction[] | undefined {
    for (const { ask, rest } of memoryAskEnds(message)) {
      const last = memoryIntent(rest, tools);
      if (!last) continue;
      const { plan } = choose(ask, readMessage(ask, { verbs }));
      if (plan.length > 0) return [...plan.slice(0, this.#maxTools - 1), last];
    }
    return undefined;
  }

  /**
   * Plans `text` (the message, the rest of it after a memory ask, or an
   * earlier one asked again) with the tools; args are looked for in `argText`
   * when given (else in `text`).
   */
  #chooser(context: Record<string, unknown>, tools: readonly PlannerTool[]) {
    return (text: string, reading: MessageReading, earlierSteps: number, argText?: string) => {
      const vector = hashingVector(text);
      return chooseTools({
        message: text,
        ...(argText !== undefined ? { argText } : {}),
        reading,
        context,
        tools,
        earlierSteps,
        scoreOf: (tool) => cosine(vector, this.#vectorOf(tool)),
        minScore: this.#minScore,
        relativeScore: this.#relativeScore,
        maxTools: this.#maxTools,
      });
    };
  }

  /** The tool's vector, cached while its name and description stay the same. */
  #vectorOf(tool: ToolMetadata): number[] {
    // The name counts twice: it is the most specific text a tool has.
    const name = tool.name.replace(/[_.-]+/g, " ");
    const text = `${name} ${name} ${tool.description}`;
    const cached = this.#toolVectors.get(tool.name);
    if (cached?.text === text) return cached.vector;
    const vector = hashingVector(text);
    this.#toolVectors.set(tool.name, { text, vector });
    return vector;
  }
}

/**
 * The step with each free-text arg it took from the message as the user typed
 * it: the message is read spelled out, but "remember that my convo is at 5"
 * keeps "convo", and "forget my convo" must then name it the same way. Enum
 * values are the schema's own and stay.
 */
function keptAsTyped(
  step: PlannedAction,
  tools: readonly PlannerTool[],
  typed: string,
): PlannedAction {
  const tool = tools.find((each) => each.name === step.tool);
  const properties = (tool ? argProperties(tool) : {}) as Record<string, { enum?: unknown }>;
  const args = Object.fromEntries(
    Object.entries(step.args).map(([name, value]) =>
      typeof value === "string" && !Array.isArray(properties[name]?.enum)
        ? [name, asTyped(typed, value)]
        : [name, value]
    ),
  );
  return { ...step, args };
}

/**
 * Whether "forget all of it" clears the memory the message before asked
 * about ("what do you remember about me?"), rather than letting a request go.
 */
function clearsWhatWasListed(
  written: string,
  tools: readonly PlannerTool[],
  previous: string | undefined,
): boolean {
  return previous !== undefined &&
    memoryIntent(written, tools, { previous })?.args.everything === true;
}

/**
 * The tools in words, and a request beside the question ("what can you do,
 * and what time is it in Oslo?") planned too by `choose`.
 */
function capabilitiesReply(
  message: string,
  tools: readonly PlannerTool[],
  choose: (text: string) => ToolChoice,
): Reply {
  const beside = memoryAskEnds(message).find(({ ask, rest }) =>
    asksForCapabilities(ask) && !asksForCapabilities(rest)
  );
  return { steps: beside ? choose(beside.rest).plan : [], note: capabilitiesNote(tools) };
}

/** What planning a message again needs: the offered tools, their verbs, the chooser, the steps so far. */
interface Rechoosing {
  tools: readonly PlannerTool[];
  verbs: ReadonlySet<string>;
  choose: (text: string, reading: MessageReading, steps: number, argText?: string) => ToolChoice;
  steps: number;
  /** The loop context (recent messages: what "both of them" names). */
  context?: Record<string, unknown>;
}

/** What a message plans besides memory: a step, or a note on what it lacks. */
interface Reply {
  steps: PlannedAction[];
  note?: string;
}

/**
 * The steps the message's words choose, for "there" the place said before, or
 * for a follow-up the read asked before; undefined when it asks for none.
 */
function planRead(
  message: string,
  reading: MessageReading,
  { earlier, takenBack, tools, verbs, choose, steps, context }: Rechoosing & {
    earlier: readonly string[];
    /** What the message took back first ("never mind the time in Rome, what about Madrid?"). */
    takenBack: string;
  },
): Reply | undefined {
  // "give it 90", "75 now" after a reply naming a loop: its score.
  const scored = rescored(message, { tools, verbs, choose, steps });
  if (scored) return scored;
  // "status of the spec": the spec loop's id, not the latest reply's (the args read "the spec loop");
  // "if it's noon here in Chicago what's the time in Paris": the place asked after.
  const typed = withTypedThings(message, tools);
  const asked = asksAnotherTime(message) ? ASKED_AFTER.exec(message)?.[0] : undefined;
  const chooseWith = (argText?: string) =>
    choose(message, reading, steps, argText ?? asked ?? (typed === message ? undefined : typed));
  // "what do I have running?": the listing of what is active.
  const runs = asksWhatRuns(message);
  const chosen = runs ? choose(runs, readMessage(runs, { verbs }), steps) : chooseWith();
  // "My friend lives in Lagos." then "what time is it there?": the place said before.
  const there = chosen.plan.length > 0 && pointsThere(message) &&
    thereBefore(message, chosen.plan, earlier, chooseWith);
  const { plan, missing } = there || chosen;
  // "how many hours ahead of Berlin is it?" after the time in Tokyo: Berlin, and Tokyo again.
  if (plan.length === 1 && comparesWithEarlier(message) === "that") {
    const compared = comparedWithEarlier(message, earlier, { tools, verbs, choose, steps });
    if (compared.length > plan.length) return { steps: compared };
  }
  // A write lacking its args may be the state asked ("could I get an update on how the loop is
  // going" is no loop to start).
  const writeOnly = missing.length > 0 && missing.every(({ tool }) => !tool.readOnly);
  const state = (plan.length > 0 || writeOnly) &&
    readsOfState(message, plan, { reading, earlier, tools, verbs, choose, steps, context });
  if (state) return { steps: state };
  if (plan.length + missing.length === 0) {
    const asked = takenBack ? [...earlier, takenBack] : earlier;
    const later = laterTurn(message, reading, {
      earlier,
      asked,
      tools,
      verbs,
      choose,
      steps,
      context,
    });
    if (later) return later;
  }
  if (plan.length > 0) return withNote(plan, missing, message, tools);
  if (missing.length > 0) return { steps: [], note: missingArgsNote(missing) };
  if (reading.kind === "greeting") return { steps: [], note: greetingNote(message) };
  return undefined;
}

/**
 * The plan, with what it leaves out: a write asked for beside what runs, still lacking an arg
 * ("record a score of 90, how are my loops doing?" lists the loops and asks which one), or a
 * time of day other than now ("When it's noon in Chicago, what time is it in Warsaw?").
 */
function withNote(
  plan: PlannedAction[],
  missing: readonly MissingArgs[],
  message: string,
  tools: readonly PlannerTool[],
): Reply {
  const unrunWrites = missing.filter(({ tool, refused }) => !tool.readOnly || refused);
  const note = unrunWrites.length > 0
    ? missingArgsNote(unrunWrites)
    : asksAnotherTime(message) && plan.some((step) => readsTheClock(step, tools))
    ? ONLY_NOW_NOTE
    : undefined;
  return { steps: plan, ...(note ? { note } : {}) };
}

/**
 * The reads a question about the state of what was named asks for: "is that
 * loop complete?" the read of that one (not the listing beside it), "status
 * on both of them?" the read for each thing the replies named. Undefined when
 * the plan stands.
 */
function readsOfState(
  message: string,
  plan: readonly PlannedAction[],
  { reading, earlier, ...rechoosing }: Rechoosing & {
    reading: MessageReading;
    earlier: readonly string[];
  },
): PlannedAction[] | undefined {
  const { tools, context } = rechoosing;
  if (asksStateOfEarlier(withTypedThings(message, tools)) === "one") {
    const one = stateOfEarlier(message, reading, earlier, rechoosing);
    if (one.length > 0) return one;
  }
  if (plan.length === 1 && asksStateOfEarlier(message) === "several") {
    const each = forEachNamed(plan[0], tools, context);
    if (each.length > 1) return each.slice(0, MAX_EACH);
  }
  return undefined;
}

/**
 * A message that plans nothing by its own words, read with the ones before
 * it: "again", "start another one", "is it done?", "is that ahead of
 * Lisbon?", "and in Lima?", "toronto specifically", "spec" after "I need the
 * loop type", "I'm in Perth" after "what time is it here?".
 */
function laterTurn(
  message: string,
  reading: MessageReading,
  { earlier, asked, tools, verbs, choose, steps, context }: Rechoosing & {
    earlier: readonly string[];
    /** The earlier messages, with what this one took back. */
    asked: readonly string[];
  },
): Reply | undefined {
  const rechoosing = { tools, verbs, choose, steps, context };
  if (asksRepeat(message)) {
    const repeated = readsOfLatest(asked, rechoosing);
    if (repeated.length > 0) return { steps: repeated };
  }
  // "start another one" after "start a spec loop": the thing named before.
  const named = reading.kind === "request" ? oneNamed(message, earlier.at(-1), tools) : "";
  const renamed = named ? choose(named, readMessage(named, { verbs }), steps) : undefined;
  if (renamed && renamed.plan.length > 0) return { steps: renamed.plan };
  if (renamed && renamed.missing.length > 0) {
    return { steps: [], note: missingArgsNote(renamed.missing) };
  }
  const state = stateOfEarlier(message, reading, asked, rechoosing);
  if (state.length > 0) return { steps: state };
  const compared = comparedWithEarlier(message, asked, rechoosing);
  if (compared.length > 0) return { steps: compared };
  const bare = namesOnly(message, reading) || answersWhereHere(message, earlier);
  const again = (followsUp(message) || bare) && askedAgain(message, asked, rechoosing);
  if (again && again.length > 0) return { steps: again };
  // "build plan" after "I need the loop type": words that read as a request of their own may
  // still answer a choice the reply asked for.
  const answer = bare || tokenize(message).length <= 4
    ? completed(message, earlier, rechoosing, { choiceOnly: !bare })
    : [];
  return answer.length > 0 ? { steps: answer } : undefined;
}

/**
 * The reads the latest earlier message that asked something by its own words
 * asked for ("what time is it in Oslo?", "how about the time in Lima?"; not
 * "and in Lima?" or "thanks!"), with args the follow-up states: those whose
 * args differ from what that message alone gives, or name a value the
 * follow-up says ("time in Oslo and Lima?", then "what about Lima?").
 */
function askedAgain(
  followUp: string,
  earlier: readonly string[],
  { tools, verbs, choose, steps }: Rechoosing,
): PlannedAction[] {
  // Past "thanks!" or "ok": the latest message that asked for something by its own words.
  const said = tokenize(followUp).join(" ");
  for (const previous of [...earlier].reverse()) {
    const reading = readMessage(previous, { verbs });
    const before = choose(previous, reading, steps).plan.map((step) => JSON.stringify(step));
    if (before.length === 0) continue;
    const statesValue = (step: PlannedAction) =>
      Object.values(step.args).some((value) =>
        typeof value === "string" && tokenize(value).length > 0 &&
        ` ${said} `.includes(` ${tokenize(value).join(" ")} `)
      );
    return choose(previous, reading, steps, followUp).plan.filter((step) =>
      tools.some((tool) => tool.name === step.tool && tool.readOnly) &&
      Object.keys(step.args).length > 0 &&
      (!before.includes(JSON.stringify(step)) || statesValue(step))
    );
  }
  return [];
}

/**
 * "Is it done?", "what's the threshold on it?" after a reply naming a loop:
 * the tool that tells the state of what that reply named; "are any of them
 * finished?" after a listing: the listing again.
 */
function stateOfEarlier(
  written: string,
  reading: MessageReading,
  earlier: readonly string[],
  rechoosing: Rechoosing,
): PlannedAction[] {
  // "how is the build plan going?" asks of the build plan loop.
  const message = withTypedThings(written, rechoosing.tools);
  const asked = asksStateOfEarlier(message);
  if (!asked) return [];
  // Read as the status it asks for ("how's it going?" alone reads as a greeting); "could I get an
  // update on how the loop is going" as "what is its status" when its own words choose no read.
  const asking = `${message.replace(/[\s?.!]+$/, "")} status`;
  const read = reading.kind === "greeting" ? readMessage(asking, rechoosing) : reading;
  // "the second of the three, how's it doing?": the loop in that place.
  const placed = inOrder(typeOpened(written, rechoosing.tools), rechoosing.tools);
  const readsFor = (text: string, reading: MessageReading) =>
    rechoosing.choose(text, reading, rechoosing.steps, placed ?? message).plan.filter((step) =>
      rechoosing.tools.some((tool) => tool.name === step.tool && tool.readOnly) &&
      (asked === "several" || Object.keys(step.args).length > 0)
    );
  // Of the one thing named: a read that takes it ("is it done?" lists nothing).
  const own = readsFor(asking, read);
  const reads = own.length > 0 || asked !== "one"
    ? own
    : readsFor(STATUS_ASKED, readMessage(STATUS_ASKED, rechoosing));
  if (asked === "one") return reads;
  // "status on both of them?": the read of one, for each thing the replies named.
  const each = reads.flatMap((step) => forEachNamed(step, rechoosing.tools, rechoosing.context));
  if (each.length > 1) return each.slice(0, MAX_EACH);
  return reads.length > 0 ? reads : readsOfLatest(earlier, rechoosing);
}

/** The question after a time of day said first: "… what's the time in Paris". */
const ASKED_AFTER = /\bwhat(?:'s|s|\s+is)?\s+(?:the\s+)?time\b.*$/is;

/** A question about the state of the thing named, in the words tools are chosen by. */
const STATUS_ASKED = "what is its status";

/** Most things one "each of them" reads. */
const MAX_EACH = 6;

/** `step` once for each id the recent replies name, when its one id arg takes one of them. */
function forEachNamed(
  step: PlannedAction,
  tools: readonly PlannerTool[],
  context: Record<string, unknown> = {},
): PlannedAction[] {
  const tool = tools.find((each) => each.name === step.tool);
  const properties = (tool ? argProperties(tool) : {}) as Record<
    string,
    Record<string, unknown>
  >;
  for (const [name, value] of Object.entries(step.args)) {
    const ids = idsNamedEarlier(name, properties[name] ?? {}, context);
    if (ids.includes(value as string)) {
      return ids.map((id) => ({ ...step, args: { ...step.args, [name]: id } }));
    }
  }
  return [step];
}

/**
 * The message with "one" said as the thing the message before named by a
 * tool's word: "start another one" after "start a spec loop" is "start a
 * spec loop"; "start one for a spec" after "what is a refinement loop?" is
 * "start a refinement loop for a spec". Empty when it says no "one".
 */
function oneNamed(message: string, previous: string | undefined, tools: readonly PlannerTool[]) {
  const one = /\b(?:another|a new|a second|one more)?\s*\bone\b(?!\s+(?:of|by|more)\b)/i;
  if (previous === undefined || !one.test(message)) return "";
  const nouns = new Set(tools.flatMap((tool) => [...toolProfile(tool).nameWords]));
  const words = tokenize(previous);
  const last = words.findLastIndex((word) => nouns.has(stem(word)));
  if (last < 0) return "";
  // "a build plan loop": the words before the noun up to its determiner, three at most.
  let first = last;
  while (first > 0 && last - first < 3 && !DETERMINERS.has(words[first - 1])) first--;
  return message.replace(one, ` a ${words.slice(first, last + 1).join(" ")}`);
}

const DETERMINERS = new Set(
  "a an the my your our this that these those another one some any is are what which new".split(
    " ",
  ),
);

/**
 * A score said without a verb for it ("75 now", "give it 90", "rate it
 * 8/10"), planned as "record a score of N": the one loop the latest reply
 * named takes it. A bare number is planned only when that loop is known.
 */
function rescored(
  written: string,
  { tools, verbs, choose, steps }: Pick<Rechoosing, "tools" | "verbs" | "choose" | "steps">,
): Reply | undefined {
  // "score the spec loop 90 and the plan loop 40": a score for each.
  const each = scoresOfThings(written, { tools, verbs, choose, steps });
  if (each) return each;
  // "give the build plan 82" names the build plan loop; "spec loop sits at 64" the spec loop.
  const message = withTypedThings(typeOpened(written, tools), tools);
  const said = scoreSaid(message);
  if (!said) return undefined;
  // "give the plan loop ninety": the thing it names goes with the score; "the non-build one", not
  // understood, too (the id is then asked for, not taken from the latest reply).
  const named = inOrder(message, tools) ??
    typedThings(tools).map(({ thing }) => thingNamed(thing).exec(message)?.[0])
      .find((phrase) => phrase !== undefined) ??
    describedOne(message);
  const asked = `record a score of ${said.score}${named ? ` for ${named}` : ""}`;
  const { plan, missing } = choose(asked, readMessage(asked, { verbs }), steps);
  if (plan.length > 0) return { steps: plan };
  return said.asked && missing.length > 0
    ? { steps: [], note: missingArgsNote(missing) }
    : undefined;
}

/**
 * A score for each thing a message names in parts of its own ("score the spec
 * loop 90 and the plan loop 40", "plan gets 72, spec gets 80"): every part
 * names a thing by its type and says a number, else undefined.
 */
function scoresOfThings(
  written: string,
  { tools, verbs, choose, steps }: Pick<Rechoosing, "tools" | "verbs" | "choose" | "steps">,
): Reply | undefined {
  const parts = written.split(/\s*(?:[,;]|\band\b)\s*/i).filter((part) => /\p{L}/u.test(part));
  if (parts.length < 2 || parts.length > MAX_EACH) return undefined;
  const typed = typedThings(tools);
  const asks: string[] = [];
  for (const part of parts) {
    const text = withTypedThings(typeOpened(part, tools), tools);
    // "first one 71, second one 83": things in their places.
    const phrase = typed.map(({ thing }) => thingNamed(thing).exec(text)?.[0]).find(Boolean) ??
      IN_ORDER.exec(text)?.[0];
    const named = phrase && (inOrder(phrase, tools) ?? phrase);
    const rest = phrase && text.slice(text.indexOf(phrase) + phrase.length).replace(SCORE_LEAD, "");
    const said = named && (scoreSaid(text) ?? scoreSaid(rest ?? ""));
    if (!named || !said) return undefined;
    asks.push(`record a score of ${said.score} for ${named}`);
  }
  const plans = asks.map((asked) => choose(asked, readMessage(asked, { verbs }), steps).plan);
  return plans.every((plan) => plan.length === 1) ? { steps: plans.flat() } : undefined;
}

/** "plan gets 72" as "the plan gets 72": a type said first names the thing of that type. */
function typeOpened(written: string, tools: readonly PlannerTool[]): string {
  // "number one gets 55" as "the first one gets 55", "the first of them" as "the first one",
  // "build-plan one" as "build plan one".
  const part = written.replace(
    NUMBERED,
    (_, number: string) => `the ${PLACE_OF_NUMBER[number.toLowerCase()]} one`,
  ).replace(OF_THEM, "the $1 one").replace(ONE_MADE, "$1 one").replace(
    /(\p{L})-(?=\p{L})/gu,
    "$1 ",
  );
  const typed = typedThings(tools);
  const opens = typed.some(({ words }) =>
    part.toLowerCase().startsWith(words) && !/^\p{L}/u.test(part.slice(words.length))
  );
  if (opens || typed.length === 0) return opens ? `the ${part}` : part;
  // "give spec loop 58", "code loop: 88", "specification loop = 92": "the spec loop", words of
  // a type (or a longer form of one) with the thing, and no determiner before them.
  const said = typedSaid(typed);
  return part.replace(
    said,
    (phrase, at: number) =>
      DETERMINERS.has(tokenize(part.slice(0, at)).at(-1) ?? "") ? phrase : `the ${phrase}`,
  );
}

/** Words of the types (or longer forms of them) before the thing: "spec loop", "coding loop". */
function typedSaid(typed: TypedThing[]): RegExp {
  let said = typedSaidOf.get(typed);
  if (said) return said;
  const alternation = (values: string[]) => [...new Set(values)].map(escapeRegExp).join("|");
  said = new RegExp(
    String.raw`\b(?:(?:${
      alternation(typed.flatMap(({ words }) => words.split(" ")))
    })\p{L}*\s+){1,2}(?:${alternation(typed.map(({ thing }) => thing))})\b`,
    "giu",
  );
  typedSaidOf.set(typed, said);
  return said;
}
const typedSaidOf = new WeakMap<TypedThing[], RegExp>();

/** What may stand between a thing and its score: "is at", "gets", ":". */
const SCORE_LEAD =
  /^(?:\s*(?:is|gets?|got|should\s+get|deserve[sd]?|earn(?:s|ed)|scored|is worth|came out at|comes out at|at|to|only|just|[:=-]))+\s*/i;

/** "the first one", "my other loop": a place among the things named, said with the thing. */
const IN_ORDER =
  /\b(?:(?:the|my|our)\s+|^\W*)(first|1st|second|2nd|third|3rd|fourth|4th|other|last|latest|newest|newer|older|earlier|later|previous|middle|most\s+recent)\s+(\p{L}+)\b|\b(?:the|whichever|which)\s+(one|loop)\s+(?:i|we)\s+(?:(just)\s+(?:started|made|opened|began|created)|(?:started|made|opened|began|created)\s+(first|second|last|earlier|later|earliest|latest|in\s+between|in\s+the\s+middle))\b|\bthe\s+(one|loop)\s+(in\s+the\s+middle)\b|\b(?:whichever|which)\s+(one|loop)\s+came\s+(first|last|second|earlier|later)\b/iu;

/** Words that say a thing's place rather than its type: "earliest", "newest". */
const PLACE_WORDS = new Set(
  "first second third last latest newest newer oldest older earliest earlier later previous recent"
    .split(" "),
);

/** "number two", "loop no. 1": a thing named by its place's number. */
const NUMBERED = /\b(?:loops?\s+)?(?:number|no\.?)\s+(one|two|three|four|1|2|3|4)\b/giu;
/** "the second one I made": a place among the things named, said with how they came. */
const ONE_MADE =
  /\b(the\s+(?:first|second|third|last|latest))\s+(?:one|loop)\s+(?:i|we)\s+(?:made|started|opened|began|created)\b/gi;
/** "the first of them", "the older of the two": a place among the things named. */
const OF_THEM =
  /\b(?:the|that|this)\s+(first|second|third|last|latest|newest|older|newer|other)\s+of\s+(?:them|those|these|both|the\s+(?:two|three)|(?:my|the)\s+loops)\b/gi;

/**
 * "the other one gets 75": the thing in that place, as "the other loop" when
 * the tools' typed things are of one kind (the arg filler finds its id).
 */
function inOrder(message: string, tools: readonly PlannerTool[]): string | undefined {
  const said = IN_ORDER.exec(message);
  const things = new Set(typedThings(tools).map(({ thing }) => thing));
  if (!said || things.size !== 1) return undefined;
  const [thing] = things;
  // "the one I just started" is the last.
  const [place, word] = said[1]
    ? [said[1], said[2].toLowerCase()]
    : [said[5] ?? said[7] ?? said[9] ?? "last", said[3] ?? said[6] ?? said[8]];
  // "the most recent" is the latest, "the one I started in between" the middle one.
  const named = place.toLowerCase().replace(/^most\s+recent$/, "latest").replace(
    /^earliest$/,
    "first",
  )
    .replace(/^in\s.*/, "middle");
  return word === "one" || word === thing ? `the ${named} ${thing}` : undefined;
}

/**
 * The message with a thing named by its type alone said with the thing too:
 * "rate the plan 90" is "rate the plan loop 90" where a tool's `loop_type`
 * takes "plan" (the longest type first: "the build plan").
 */
function withTypedThings(message: string, tools: readonly PlannerTool[]): string {
  const typed = typedThings(tools);
  if (typed.length === 0) return message;
  // "the code one", "the build plan one": words of a type, with "one" for the thing of that type.
  let text = message.replace(
    /\b((?:the|my|our|that|this)\s+(\p{L}+(?:\s+\p{L}+){0,2}))\s+one\b/iu,
    (whole, named: string, said: string) => {
      // By stems: "the coding one" is the build code loop ("the plan one" the plan loop, not the
      // build plan loop).
      // "that earliest code one": the type's words, a place word beside them left out.
      const saidWords = said.toLowerCase().split(/\s+/).filter((word) => !PLACE_WORDS.has(word))
        .map(stemEnglish);
      if (saidWords.length === 0) return whole;
      const stems = (words: string) => words.split(" ").map(stemEnglish);
      const holding = typed.filter(({ words }) =>
        saidWords.every((word) => stems(words).includes(word))
      );
      const of = holding.find(({ words }) => stems(words).join(" ") === saidWords.join(" ")) ??
        (holding.length === 1 ? holding[0] : undefined);
      // "the build one" of a build plan and a build code loop: either (the id is asked for).
      if (!of) return holding.length > 0 ? `${named} ${holding[0].thing}` : whole;
      return `${named.split(/\s+/)[0]} ${of.words} ${of.thing}`;
    },
  );
  for (const { thing, said } of typed) text = text.replace(said, `$1 ${thing}`);
  return text;
}

/** Each type a tool's `<thing>_type` enum takes, longest first, with how it is said alone. */
function typedThings(tools: readonly PlannerTool[]): TypedThing[] {
  let typed = typedByTools.get(tools);
  if (typed) return typed;
  typed = tools.flatMap((tool) =>
    Object.entries(argProperties(tool)).flatMap(([name, property]) => {
      const thing = /^(.+?)_(?:type|kind)$/.exec(name)?.[1]?.replace(/_/g, " ");
      const values = (property as { enum?: unknown[] }).enum;
      if (!thing || !Array.isArray(values)) return [];
      return values.filter((value): value is string => typeof value === "string")
        .map((value) => {
          const words = value.replace(/_/g, " ");
          const said = new RegExp(
            String.raw`\b((?:the|my|our|that|this)\s+${escapeRegExp(words)})\b(?!\s+(?:${
              escapeRegExp(thing)
            }|one)\b)`,
            "i",
          );
          return { words, thing, said };
        });
    })
  ).sort((a, b) => b.words.length - a.words.length);
  typedByTools.set(tools, typed);
  return typed;
}

/** "the plan loop", "my build code loop": a thing of `thing`'s kind, described. */
function thingNamed(thing: string): RegExp {
  let named = namedThings.get(thing);
  if (!named) {
    named = new RegExp(
      String.raw`\b(?:the|my|our|that|this)\s+(?:[\p{L}_-]+\s+){1,2}?${escapeRegExp(thing)}\b`,
      "iu",
    );
    namedThings.set(thing, named);
  }
  return named;
}
const namedThings = new Map<string, RegExp>();

interface TypedThing {
  words: string;
  thing: string;
  said: RegExp;
}
const typedByTools = new WeakMap<readonly PlannerTool[], TypedThing[]>();

/** "I'm in Perth btw" right after a question about the writer's place ("what time is it here?"). */
function answersWhereHere(message: string, earlier: readonly string[]): boolean {
  const previous = earlier.at(-1);
  return previous !== undefined && locatesWriter(message) && asksAboutWritersPlace(previous);
}

/**
 * "Is that ahead of Lisbon?" after the time in Sao Paulo: the read asked
 * before, and again for the value the message names; "and between LA and
 * Tokyo?": for the values it names.
 */
function comparedWithEarlier(
  message: string,
  earlier: readonly string[],
  rechoosing: Rechoosing,
): PlannedAction[] {
  const compares = comparesWithEarlier(message);
  if (!compares) return [];
  if (compares === "two") return readsOfLatestTwo(earlier, rechoosing);
  const named = askedAgain(message, earlier, rechoosing);
  if (named.length === 0) return [];
  const before = compares === "that" ? readsOfLatest(earlier, rechoosing) : [];
  const seen = new Set<string>();
  return [...before, ...named].filter((step) => {
    const key = JSON.stringify(step);
    return !seen.has(key) && Boolean(seen.add(key));
  });
}

/**
 * The latest earlier request that could not run for a missing arg, with the
 * message as its answer: "start a loop", then "spec"; with `choiceOnly`,
 * only an arg of a few named values ("build plan" reads as a request too).
 */
function completed(
  answer: string,
  earlier: readonly string[],
  { verbs, choose, steps }: Rechoosing,
  { choiceOnly }: { choiceOnly: boolean },
): PlannedAction[] {
  const previous = earlier.at(-1);
  if (previous === undefined) return [];
  const reading = readMessage(previous, { verbs });
  const before = choose(previous, reading, steps);
  if (before.plan.length > 0 || before.missing.length === 0) return [];
  if (choiceOnly && !before.missing.every(asksChoices)) return [];
  return choose(previous, reading, steps, `${previous} ${answer}`).plan;
}

/** Whether every arg a tool lacks is one of a few named values (an enum). */
function asksChoices({ tool, args }: MissingArgs): boolean {
  const properties = (tool.argsSchema?.properties ?? {}) as Record<string, { enum?: unknown }>;
  return args.every((name) => Array.isArray(properties[name]?.enum));
}

/** The reads the latest earlier message that asked for any planned, as they were ("again"). */
function readsOfLatest(earlier: readonly string[], rechoosing: Rechoosing): PlannedAction[] {
  return latestReads(earlier, rechoosing).steps;
}

/**
 * "Which one is ahead?" after the time in Auckland, then in Lima: the two
 * latest reads again (of one message, or of the two latest that read).
 */
function readsOfLatestTwo(earlier: readonly string[], rechoosing: Rechoosing): PlannedAction[] {
  const latest = latestReads(earlier, rechoosing);
  if (latest.steps.length !== 1) return latest.steps;
  const before = latestReads(earlier.slice(0, latest.at), rechoosing).steps;
  const two = [...before.slice(-1), ...latest.steps];
  return two.length === 2 && two[0].tool === two[1].tool &&
      JSON.stringify(two[0].args) !== JSON.stringify(two[1].args)
    ? two
    : [];
}

/** The reads of the latest earlier message that asked for any, and where it is. */
function latestReads(
  earlier: readonly string[],
  { tools, verbs, choose, steps }: Rechoosing,
): { steps: PlannedAction[]; at: number } {
  for (let i = earlier.length - 1; i >= 0; i--) {
    const previous = earlier[i];
    const reading = readMessage(previous, { verbs });
    const chosen = choose(previous, reading, steps);
    // "is it late there?" asked of the place said before it.
    const { plan } = chosen.plan.length > 0 && pointsThere(previous) &&
        thereBefore(
          previous,
          chosen.plan,
          earlier.slice(0, i),
          (argText) => choose(previous, reading, steps, argText),
        ) || chosen;
    // A follow-up ("no, in Bogota") did what it asked again.
    const done = plan.length > 0 || !followsUp(previous)
      ? plan
      : askedAgain(previous, earlier.slice(0, i), { tools, verbs, choose, steps });
    if (done.length > 0) {
      const reads = done.filter((step) =>
        tools.some((tool) => tool.name === step.tool && tool.readOnly)
      );
      return { steps: reads, at: i };
    }
  }
  return { steps: [], at: -1 };
}

/** The user's messages before the latest, oldest first: the stored ones, then the request's. */
function earlierUserMessages(request: MCPRequest, context: Record<string, unknown>): string[] {
  const inRequest = request.messages.slice(0, -1).filter((message) => message.role === "user");
  return [...storedUserMessages(context), ...inRequest.map((message) => message.content)];
}

/**
 * The text without emoji and emoticons ("🙏", ":)"), which say no words, with
 * each run of spaces one space and each run of line breaks one line break:
 * the grammar's patterns then never meet long runs of either.
 */
function plainSpaces(text: string): string {
  return text.replace(EMOJI, " ").replace(EMOTICON, " ").replace(/[^\S\n]+/g, " ")
    .replace(/ ?\n[\s]*/g, "\n").trim();
}

/** A pictograph with its joiners, variation selectors and skin tones ("👍🏽", "🗑️"). */
const EMOJI = /(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u200d|\ufe0f|\u20e3)+/gu;
/** A face or a heart typed in characters, standing alone: ":)", ";-)", ":D", "xD", "<3". */
const EMOTICON = /(?<=^|\s)(?:[:;=]-?[)(DPpOo3|\/\\]+|[xX]D+|<3+|\^_?\^)(?=\s|$)/g;

/** The note cut to whole lines within {@link MAX_NOTE} characters. */
function fitNote(note: string): string {
  if (note.length <= MAX_NOTE) return note;
  const lines: string[] = [];
  let length = 0;
  for (const line of note.split("\n")) {
    if (length + line.length + 1 > MAX_NOTE - 2) break;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.length > 0 ? [...lines, "…"].join("\n") : note.slice(0, MAX_NOTE);
}

/** "there" as a place ("I live there"), not "there is". */
const THERE_PLACE = /\b(?:over )?there\b(?!\s*(?:is|are|was|were|'s|s|will|has|have)\b)/i;

/** Whether the step reads the time: a read-only tool with "time" in its name. */
function readsTheClock(step: PlannedAction, tools: readonly PlannerTool[]): boolean {
  const tool = tools.find((each) => each.name === step.tool);
  return tool?.readOnly === true && toolProfile(tool).nameWords.has("time");
}

/** A verb of going just before "there": "I'm going", "we moved". */
const MOVING =
  /\b(?:go|goes|going|went|gone|move|moves|moving|moved|travel|travels|travelling|traveling|travelled|traveled|fly|flies|flying|flew|head|heading|headed|come|comes|coming|came|drive|driving|drove|get|getting|got)\s+$/i;

/** The verbs the offered tools answer to. */
function toolVerbs(tools: readonly PlannerTool[]): Set<string> {
  return new Set(tools.flatMap((tool) => toolProfile(tool).verbs));
}

/**
 * The note when nothing was planned: a statement says how to have it kept, anything else what
 * the tools do; a statement or a fragment after a take-back lets the request go ("never mind, I
 * found it", "never mind, got it").
 */
function nothingPlannedNote(
  reading: MessageReading,
  tools: readonly PlannerTool[],
  { tookBack, message }: { tookBack: boolean; message: string },
): string {
  const saysNothingMore = reading.kind === "statement" || reading.kind === "fragment";
  if (tookBack && saysNothingMore) return LET_GO_NOTE;
  if (asksAboutWriter(message) && tools.some((tool) => tool.name === "remember")) {
    return UNKNOWN_ABOUT_YOU_NOTE;
  }
  if (reading.kind === "fragment" && REMARK.test(tokenize(message).join(" "))) return REMARK_NOTE;
  // "please don't erase this chat": nothing to do, and said so.
  if (KEEPS_CHAT.test(tokenize(message).join(" "))) return KEPT_CHAT_NOTE;
  if (reading.kind !== "statement") return unservedNote(tools);
  // "hi, I'm Sam"
  return opensWithGreeting(message) ? `Hello! ${statementNote(tools)}` : statementNote(tools);
}

/** "never wipe this conversation", "do NOT delete our chat". */
const KEEPS_CHAT =
  /^(?:please |so )?(?:do not|don t|dont|never|no need to) (?:ever )?(?:delete|erase|wipe|clear|remove|forget|bin|trash|scrap|nuke) (?:this|the|our) (?:whole |entire )?(?:chat|conversation|convo|thread|history|session|talk)\b/;
const KEPT_CHAT_NOTE = "All right: I did not delete this conversation.";

/**
 * A remark about something, which asks for nothing: words, then "is", "was"…
 * not before a pronoun ("this chat is fun"; not "and is it the same as …").
 */
const REMARK =
  /^\S+(?: \S+)* (?:is|are|was|were)\b(?! (?:it|that|this|there|they|he|she|we|you)\b)/;

/**
 * A question about the writer that memory could answer: "what's my birthday?",
 * "where do I live?", "where did I park?" (not what they said to me here).
 */
function asksAboutWriter(message: string): boolean {
  return /^(?:(?:what|when|who|where|which)(?: s| is| are| was)? (?:my|mine)\b|(?:do|did|does) you (?:know|remember|recall) (?:my|where i|what i|who i|when i)\b|(?:where|what|who|when) (?:do|did|am|was|have|had) i (?!(?:say|said|ask|asked|tell|told|mention|mentioned|write|wrote|type|typed)\b)\w)/
    .test(tokenize(message).join(" "));
}
