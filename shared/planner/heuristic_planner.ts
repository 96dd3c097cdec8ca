/**
 * The offline default planner. It ranks the offered tools by lexical
 * similarity (hashing vectors) between the latest message and each tool's name
 * and description, keeps those close to the best match, fills their args (see
 * `arg_filler.ts`), skips a tool whose required args are unknown, and ends
 * with `finalize_summary` when that tool is offered. A tool whose required arg
 * only an earlier chosen tool's output can supply goes after that tool, with a
 * step reference. A tool that changes something (not marked read-only) is
 * planned only when the message asks for it: it states one of the tool's args
 * (see {@link asksFor}). In a later round it has nothing to add (it cannot read
 * results): it asks for the reply, or answers [] — except in a refinement
 * round, where it plans afresh. "Remember that …" and "forget …" plan the
 * memory tools (see `memory_intents.ts`). No model is involved, so it
 * understands words, not meaning.
 */
import type { PlannedAction, ToolMetadata } from "../contracts.ts";
import { hashingVector } from "../text/hashing_vector.ts";
import { contentWords, cosine } from "../text/words.ts";
import type { PlanInput, Planner, PlannerTool } from "../ports.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import { SEARCH_TOOLS } from "../tools/search_tools.ts";
import { fillArgs, type FilledArgs, type Producer } from "./arg_filler.ts";
import { memoryIntent } from "./memory_intents.ts";

/** Tunables of the heuristic planner. */
export interface HeuristicPlannerOptions {
  /** Lowest similarity for a tool to be considered at all. */
  minScore?: number;
  /** Keep tools scoring at least this fraction of the best score. */
  relativeScore?: number;
  /** Most tools besides `finalize_summary`. */
  maxTools?: number;
}

/** Plans by ranking tools against the message (see the module doc). */
export class HeuristicPlanner implements Planner {
  readonly #minScore: number;
  readonly #relativeScore: number;
  readonly #maxTools: number;
  readonly #toolVectors = new Map<string, { text: string; vector: number[] }>();

  constructor(
    { minScore = 0.1, relativeScore = 0.75, maxTools = 4 }: HeuristicPlannerOptions = {},
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
    const message = request.messages[request.messages.length - 1]?.content ?? "";
    // "Remember that …", "forget …": the memory tools, then the reply.
    const intent = memoryIntent(message, tools);
    if (intent) {
      return Promise.resolve(
        offersFinalize ? [intent, { tool: FINALIZE_TOOL, args: {} }] : [intent],
      );
    }
    const messageVector = hashingVector(message);
    const ranked = tools
      // search_tools asks for other tools; ranking words cannot tell when that helps.
      .filter((tool) => tool.name !== FINALIZE_TOOL && tool.name !== SEARCH_TOOLS)
      .map((tool) => ({ tool, score: cosine(messageVector, this.#vectorOf(tool)) }))
      .filter(({ score }) => score >= this.#minScore)
      .sort((a, b) => b.score - a.score);
    const best = ranked[0]?.score ?? 0;
    const eligible = ranked
      .filter(({ score }) => score >= best * this.#relativeScore)
      .map(({ tool }) => tool);
    // First the tools whose args are known; then those that need one of their outputs.
    const plan: PlannedAction[] = [];
    const producers: Producer[] = [];
    const add = (tool: PlannerTool, args: Record<string, unknown>) => {
      producers.push({
        position: results.length + plan.length,
        name: tool.name,
        outputSchema: tool.outputSchema,
      });
      plan.push({ tool: tool.name, args });
    };
    const waiting: PlannerTool[] = [];
    const fill = (tool: PlannerTool, withProducers: readonly Producer[] = []) => {
      const filled = fillArgs(tool.argsSchema ?? {}, {
        message,
        context,
        producers: withProducers,
        acceptsArg: tool.acceptsArg,
      });
      return filled && (tool.readOnly || asksFor(tool, filled, message)) ? filled.args : undefined;
    };
    for (const tool of eligible) {
      if (plan.length >= this.#maxTools) break;
      const args = fill(tool);
      if (args) add(tool, args);
      else waiting.push(tool);
    }
    for (const tool of waiting) {
      if (plan.length >= this.#maxTools) break;
      const args = fill(tool, producers);
      if (args) add(tool, args);
    }
    if (offersFinalize) plan.push({ tool: FINALIZE_TOOL, args: {} });
    return Promise.resolve(plan);
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
 * Whether the message asks for a tool that changes something (one not marked
 * read-only): it must state at least one of the tool's args itself, or, for a
 * tool without args, name it (every content word of the tool's name). Words
 * alone make a tool similar, not wanted: "record a score of 90 for loop
 * f2315a12" must not also start a new loop because "loop" matched.
 */
export function asksFor(tool: PlannerTool, filled: FilledArgs, message: string): boolean {
  if (filled.fromMessage.length > 0) return true;
  const properties = Object.keys((tool.argsSchema?.properties ?? {}) as Record<string, unknown>);
  if (properties.length > 0) return false;
  const said = new Set(contentWords(message));
  const named = contentWords(tool.name.replace(/[_.-]+/g, " "));
  return named.length > 0 && named.every((word) => said.has(word));
}
