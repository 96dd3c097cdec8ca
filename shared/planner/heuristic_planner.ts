/**
 * The offline default planner. It ranks the offered tools by lexical
 * similarity (hashing vectors) between the latest message and each tool's name
 * and description, keeps those close to the best match, fills their args (see
 * `arg_filler.ts`), skips a tool whose required args are unknown, and ends
 * with `finalize_summary` when that tool is offered. No model is involved, so
 * it understands words, not meaning.
 */
import type { PlannedAction, ToolMetadata } from "../contracts.ts";
import { cosine, hashingVector } from "../adapters/hashing/hashing_embedder.ts";
import type { PlanInput, Planner } from "../ports.ts";
import { FINALIZE_TOOL } from "../tools/finalize_summary.ts";
import { fillArgs } from "./arg_filler.ts";

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

  plan({ request, context, tools }: PlanInput): Promise<PlannedAction[]> {
    const message = request.messages[request.messages.length - 1]?.content ?? "";
    const messageVector = hashingVector(message);
    const ranked = tools
      .filter((tool) => tool.name !== FINALIZE_TOOL)
      .map((tool) => ({ tool, score: cosine(messageVector, this.#vectorOf(tool)) }))
      .filter(({ score }) => score >= this.#minScore)
      .sort((a, b) => b.score - a.score);
    const best = ranked[0]?.score ?? 0;
    const plan: PlannedAction[] = [];
    for (const { tool, score } of ranked) {
      if (plan.length >= this.#maxTools || score < best * this.#relativeScore) break;
      const args = fillArgs(tool.argsSchema ?? {}, { message, context });
      if (args) plan.push({ tool: tool.name, args });
    }
    if (tools.some((tool) => tool.name === FINALIZE_TOOL)) {
      plan.push({ tool: FINALIZE_TOOL, args: {} });
    }
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
