/**
 * MCP prompts: `refine`, which tells an agent how to run a refinement loop
 * with these tools (the loop type's threshold and iteration limit from the
 * configuration), and one prompt per request mode, which wraps a user's
 * message as the loop's planner would see it (the session's recent messages
 * and the caller's working memory; not the matches a search would add) — so a
 * client can reproduce a loop turn by hand.
 */
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { LoopTypeName, type MCPRequest, Mode } from "../contracts.ts";
import { buildPlanMessages } from "../planner/plan_prompt.ts";
import type { Caller, ConversationStore } from "../ports.ts";
import type { LoopType } from "../store/refinement_store_port.ts";
import { DEFAULT_LOOP_SETTINGS, type LoopSettings } from "../refinement/policy.ts";
import { OPEN_POLICY, type ToolPolicy } from "../tools/tool_policy.ts";
import type { ToolRegistry } from "../tools/tool_registry.ts";
import type { WorkingMemoryStore } from "../store/working_memory_port.ts";

/** What the prompts need. */
export interface McpPromptDeps {
  registry: ToolRegistry;
  conversations: ConversationStore;
  /** The caller's working memory, shown to the planner every turn. */
  memory?: WorkingMemoryStore;
  policy?: ToolPolicy;
  refinementSettings?: Readonly<Record<LoopType, LoopSettings>>;
}

const LOOP_TYPES_TEXT = LoopTypeName.options.join(", ");

/** `prompts/list`. */
export const PROMPTS = Object.freeze([
  {
    name: "refine",
    title: "Run a refinement loop",
    description:
      "How to improve a plan, spec, build plan or build code with this server's refinement-loop tools until it reaches the loop type's quality threshold.",
    arguments: [{
      name: "loop_type",
      description: `The kind of work to refine: ${LOOP_TYPES_TEXT}`,
      required: true,
    }],
  },
  ...Mode.options.map((mode) => ({
    name: mode,
    title: `A ${mode} loop turn`,
    description:
      `The planner's prompt for a message in mode "${mode}": the tools this caller may use in that mode, with their schemas, the session's recent messages and the caller's working memory. Send it to a model to plan the turn by hand.`,
    arguments: [
      { name: "message", description: "The user's message", required: true },
      {
        name: "session_id",
        description: "A session of yours whose recent messages to include",
        required: false,
      },
    ],
  })),
]);

/** `prompts/get`. */
export async function getPrompt(
  deps: McpPromptDeps,
  caller: Caller,
  name: string,
  args: Record<string, string> = {},
) {
  if (name === "refine") return refinePrompt(deps, requireArg(name, args, "loop_type"));
  const mode = Mode.safeParse(name);
  if (!mode.success) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Prompt "${name}" not found; prompts/list shows the available prompts`,
    );
  }
  return await modePrompt(
    deps,
    caller,
    mode.data,
    requireArg(name, args, "message"),
    args.session_id,
  );
}

function refinePrompt(deps: McpPromptDeps, value: string) {
  const loopType = LoopTypeName.safeParse(value);
  if (!loopType.success) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Prompt "refine": loop_type must be one of ${LOOP_TYPES_TEXT}; got "${value.slice(0, 50)}"`,
    );
  }
  const type = loopType.data;
  const { threshold, maxIterations } = (deps.refinementSettings ?? DEFAULT_LOOP_SETTINGS)[type];
  const text = `Refine the ${type.replace("_", " ")} with this server's refinement-loop tools:
1. Call initialize_refinement_loop with {"loop_type": "${type}"} and keep the loop's id.
2. Write (or revise) the ${
    type.replace("_", " ")
  }, then score it honestly from 0 to 100 against what was asked: judge the result, not the effort, and say what is missing.
3. Call decide_loop_next_action with {"loop_id": <the id>, "current_score": <your score>}.
4. Act on the status it returns:
   - "refine": improve the work where your review found it weakest, then go back to step 2.
   - "completed": the score reached the threshold; present the result.
   - "user_input": progress stalled or the iteration limit was reached; show the result and your review, and ask the user how to go on.
A ${type} loop completes at a score of ${threshold} or more and asks for the user after ${maxIterations} iterations, or sooner when the last two improvements were both under 5 points. get_loop_status shows where a loop stands; list_active_loops lists your recent loops.`;
  return {
    description: `Refine a ${type} until it scores ${threshold}`,
    messages: [{ role: "user" as const, content: { type: "text" as const, text } }],
  };
}

async function modePrompt(
  deps: McpPromptDeps,
  caller: Caller,
  mode: Mode,
  message: string,
  sessionId?: string,
) {
  const recentMessages = sessionId
    ? (await deps.conversations.listMessages(caller, sessionId, 10))
      .map(({ role, content }) => ({ role, content }))
    : [];
  const workingMemory = deps.memory ? (await deps.memory.getMemory(caller)).document : {};
  const request: MCPRequest = {
    mode,
    sessionId: sessionId ?? "mcp-prompt",
    messages: [{ role: "user", content: message }],
  };
  const tools = (deps.policy ?? OPEN_POLICY).filter(deps.registry.getToolMetadataList(), {
    caller,
    mode,
  });
  const [system, user] = buildPlanMessages({
    request,
    context: {
      recentMessages,
      semanticMatches: [],
      workingMemory,
      sessionId: request.sessionId,
      mode,
    },
    tools,
    signal: new AbortController().signal,
  });
  return {
    description: `The planner's prompt for this message in mode "${mode}"`,
    messages: [{
      role: "user" as const,
      content: { type: "text" as const, text: `${system.content}\n\n${user.content}` },
    }],
  };
}

function requireArg(prompt: string, args: Record<string, string>, name: string): string {
  const value = args[name];
  if (typeof value === "string" && value.trim() !== "") return value;
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Prompt "${prompt}" needs the argument "${name}"`,
  );
}
