/**
 * The four refinement-loop tools of the specification (seed 000) as registry
 * tools: usable by the loop's planner and by any MCP client. State lives in a
 * {@link RefinementStore}, scoped to the caller.
 */
import { z } from "zod";
import { LoopOutput } from "../contracts.ts";
import type { LoopState, LoopType, RefinementStore } from "../store/refinement_store_port.ts";
import { defineTool, type ToolDefinition } from "../tools/tool.ts";
import { decide, DEFAULT_LOOP_SETTINGS, LOOP_TYPES, type LoopSettings } from "./policy.ts";

const LoopTypeSchema = z.enum(LOOP_TYPES as [LoopType, ...LoopType[]], {
  error: `loop_type must be one of ${LOOP_TYPES.join(", ")}`,
}).describe("plan, spec, build_plan or build_code");

const LoopId = z.string().regex(/^[0-9a-f]{8}$/, {
  error: "loop_id is the 8 lowercase hex characters returned by initialize_refinement_loop",
}).describe("The loop's id (8 lowercase hex characters)");

const Score = z.int({ error: "current_score must be an integer from 0 to 100" })
  .min(0, { error: "current_score must be an integer from 0 to 100" })
  .max(100, { error: "current_score must be an integer from 0 to 100" })
  .describe("Quality score of the latest version, 0 to 100");

/** Most loops `list_active_loops` returns. */
export const LIST_LIMIT = 10;

/**
 * The tools that start and score a refinement loop. In a refinement run
 * (`refinement` in the request) the runner starts and scores the run's loop
 * itself, so the planner is not offered these: a plan cannot open a second
 * loop or score the run's loop behind the runner's back.
 */
export const RUN_DRIVEN_TOOLS: readonly string[] = [
  "initialize_refinement_loop",
  "decide_loop_next_action",
] as const;
const [INITIALIZE_TOOL, DECIDE_TOOL] = RUN_DRIVEN_TOOLS;

/** Builds the four tools over `store`, with per-type thresholds and limits. */
export function createRefinementTools(
  { store, settings = DEFAULT_LOOP_SETTINGS }: {
    store: RefinementStore;
    settings?: Readonly<Record<LoopType, LoopSettings>>;
  },
): ToolDefinition[] {
  return [
    initializeTool(store, settings),
    decideTool(store),
    statusTool(store),
    listTool(store),
  ];
}

/** `initialize_refinement_loop`: starts a loop with its type's threshold and iteration limit. */
function initializeTool(
  store: RefinementStore,
  settings: Readonly<Record<LoopType, LoopSettings>>,
): ToolDefinition {
  return defineTool({
    name: INITIALIZE_TOOL,
    description:
      "Start a quality-driven refinement loop for a plan, spec, build plan or build code. Returns the loop's id (8 hex characters), its quality threshold and iteration limit. Then score each new version and call decide_loop_next_action.",
    argsSchema: z.object({ loop_type: LoopTypeSchema }),
    outputSchema: LoopOutput,
    annotations: {
      title: "Start a refinement loop",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    },
    run: async ({ args, caller }) => {
      const { threshold, maxIterations } = settings[args.loop_type];
      return toOutput(
        await store.create(caller, { loopType: args.loop_type, threshold, maxIterations }),
      );
    },
  });
}

/** `decide_loop_next_action`: records a score and returns the policy's decision. */
function decideTool(store: RefinementStore): ToolDefinition {
  return defineTool({
    name: DECIDE_TOOL,
    description:
      "Record the quality score (integer 0-100) of a refinement loop's latest version and get the next action: 'completed' when the score reaches the loop's threshold; 'user_input' when the iteration limit is reached or progress stalls (the last two improvements both under 5 points); otherwise 'refine'. A completed loop accepts no more scores.",
    argsSchema: z.object({ loop_id: LoopId, current_score: Score }),
    outputSchema: LoopOutput,
    annotations: {
      title: "Decide the next refinement step",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    },
    run: async ({ args, caller }) =>
      toOutput(
        await store.update(caller, args.loop_id, (state) => decide(state, args.current_score)),
      ),
  });
}

/** `get_loop_status`: one loop's state by id. */
function statusTool(store: RefinementStore): ToolDefinition {
  return defineTool({
    name: "get_loop_status",
    description:
      "Get a refinement loop's state by id: status, current score, score history, iteration, threshold and iteration limit.",
    argsSchema: z.object({ loop_id: LoopId }),
    outputSchema: LoopOutput,
    annotations: {
      title: "Refinement loop status",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    },
    run: async ({ args, caller }) => toOutput(await store.get(caller, args.loop_id)),
  });
}

/** `list_active_loops`: the caller's most recent loops, newest first. */
function listTool(store: RefinementStore): ToolDefinition {
  return defineTool({
    name: "list_active_loops",
    description:
      `List your ${LIST_LIMIT} most recent refinement loops, newest first, with status and scores.`,
    argsSchema: z.object({}),
    outputSchema: z.object({ loops: z.array(LoopOutput) }),
    annotations: {
      title: "List refinement loops",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    },
    run: async ({ caller }) => ({
      loops: (await store.listRecent(caller, LIST_LIMIT)).map(toOutput),
    }),
  });
}

/** A loop's state in the tools' snake_case output shape (`{id, status, ...}` as in the specification). */
export function toOutput(state: LoopState): LoopOutput {
  return {
    id: state.id,
    status: state.status,
    loop_type: state.loopType,
    current_score: state.currentScore,
    score_history: state.scoreHistory,
    iteration: state.iteration,
    threshold: state.threshold,
    max_iterations: state.maxIterations,
    created_at: state.createdAt,
    updated_at: state.updatedAt,
  };
}
