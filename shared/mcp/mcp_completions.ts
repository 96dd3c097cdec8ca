/**
 * `completion/complete`: `loop_id` and `session_id` from the caller's own
 * data (prefix match, at most 100 values), and the `loop_type` argument of
 * the `refine` prompt. Anything else completes to nothing.
 */
import { LoopTypeName, Mode } from "../contracts.ts";
import type { Caller, ConversationStore } from "../ports.ts";
import type { RefinementStore } from "../store/refinement_store_port.ts";
import { LOOP_TEMPLATE, MESSAGES_TEMPLATE } from "./mcp_resources.ts";

/** Where completions come from. */
export interface McpCompletionDeps {
  conversations: ConversationStore;
  loops: RefinementStore;
}

/** Most values one completion returns (MCP's own limit). */
export const MAX_COMPLETIONS = 100;

/** What `completion/complete` asks. */
export interface CompletionRequest {
  ref: { type: string; uri?: string; name?: string };
  argument: { name: string; value: string };
}

/** The completion of one argument. */
export async function complete(
  deps: McpCompletionDeps,
  caller: Caller,
  { ref, argument }: CompletionRequest,
) {
  const prefix = argument.value.slice(0, 200);
  const values = await candidates(deps, caller, ref, argument.name, prefix);
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETIONS),
      total: values.length,
      hasMore: values.length > MAX_COMPLETIONS,
    },
  };
}

async function candidates(
  deps: McpCompletionDeps,
  caller: Caller,
  ref: CompletionRequest["ref"],
  name: string,
  prefix: string,
): Promise<string[]> {
  // One more than the limit, so `hasMore` is known.
  const limit = MAX_COMPLETIONS + 1;
  const resource = ref.type === "ref/resource" ? ref.uri : undefined;
  const prompt = ref.type === "ref/prompt" ? ref.name : undefined;
  if (name === "loop_id" && resource === LOOP_TEMPLATE) {
    return await deps.loops.findIds(caller, prefix, limit);
  }
  const modePrompt = prompt !== undefined && Mode.safeParse(prompt).success;
  if (name === "session_id" && (resource === MESSAGES_TEMPLATE || modePrompt)) {
    return await deps.conversations.listSessions(caller, prefix, limit);
  }
  if (name === "loop_type" && prompt === "refine") {
    return LoopTypeName.options.filter((type) => type.startsWith(prefix));
  }
  return [];
}
