/**
 * The caller's data as MCP resources: a refinement loop
 * (`mcp-loop://loops/{loop_id}`, as the refinement tools return it) and a
 * session's stored messages (`mcp-loop://sessions/{session_id}/messages`,
 * oldest first, no vectors; the session id percent-encoded) and the caller's
 * working memory (`mcp-loop://memory`). `resources/list` shows the working
 * memory and the caller's ten most recent loops. Another caller's loop or
 * session reads exactly like one that does not exist.
 */
import { ResourceNotFoundError } from "@modelcontextprotocol/server";
import { isAppError } from "../errors.ts";
import type { Caller, ConversationStore } from "../ports.ts";
import type { RefinementStore } from "../store/refinement_store_port.ts";
import type { WorkingMemoryStore } from "../store/working_memory_port.ts";
import { LIST_LIMIT, toOutput } from "../refinement/refinement_tools.ts";

/** Where the resources come from. */
export interface McpResourceDeps {
  conversations: ConversationStore;
  loops: RefinementStore;
  memory?: WorkingMemoryStore;
}

/** The URI template of a refinement loop. */
export const LOOP_TEMPLATE = "mcp-loop://loops/{loop_id}";
/** The URI template of a session's messages. */
export const MESSAGES_TEMPLATE = "mcp-loop://sessions/{session_id}/messages";
/** The URI of the caller's working memory. */
export const MEMORY_URI = "mcp-loop://memory";
/** Most messages a session resource holds (the latest ones). */
export const MESSAGES_LIMIT = 100;

const JSON_TYPE = "application/json";

/** `resources/templates/list`. */
export const RESOURCE_TEMPLATES = Object.freeze([
  {
    uriTemplate: LOOP_TEMPLATE,
    name: "refinement-loop",
    title: "Refinement loop",
    description:
      "One of your refinement loops: status, current score, score history, iteration, threshold and iteration limit.",
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: MESSAGES_TEMPLATE,
    name: "session-messages",
    title: "Session messages",
    description:
      `The stored messages of one of your chat sessions (the latest ${MESSAGES_LIMIT}, oldest first). Percent-encode the session id.`,
    mimeType: JSON_TYPE,
  },
]);

/** `resources/list`: the caller's most recent loops. */
export async function listResources(deps: McpResourceDeps, caller: Caller) {
  const loops = await deps.loops.listRecent(caller, LIST_LIMIT);
  const memory = deps.memory
    ? [{
      uri: MEMORY_URI,
      name: "working-memory",
      title: "Working memory",
      description: "What you asked to be remembered: the document the planner reads every turn.",
      mimeType: JSON_TYPE,
    }]
    : [];
  return {
    resources: [
      ...memory,
      ...loops.map((loop) => ({
        uri: `mcp-loop://loops/${loop.id}`,
        name: `loop-${loop.id}`,
        title: `${loop.loopType} loop ${loop.id} (${loop.status})`,
        mimeType: JSON_TYPE,
      })),
    ],
  };
}

/** `resources/read`; a URI that names nothing of the caller's is `ResourceNotFoundError`. */
export async function readResource(deps: McpResourceDeps, caller: Caller, uri: string) {
  const json = (value: unknown) => ({
    contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(value) }],
  });
  if (uri === MEMORY_URI && deps.memory) {
    return json({ memory: (await deps.memory.getMemory(caller)).document });
  }
  const loop = /^mcp-loop:\/\/loops\/([0-9a-f]{8})$/.exec(uri);
  if (loop) {
    try {
      return json(toOutput(await deps.loops.get(caller, loop[1])));
    } catch (error) {
      if (isAppError(error) && error.code === "LOOP_NOT_FOUND") {
        throw new ResourceNotFoundError(uri);
      }
      throw error;
    }
  }
  const session = /^mcp-loop:\/\/sessions\/([^/]+)\/messages$/.exec(uri);
  const sessionId = session ? decode(session[1]) : undefined;
  if (sessionId) {
    const messages = await deps.conversations.listMessages(caller, sessionId, MESSAGES_LIMIT);
    if (messages.length > 0) return json({ sessionId, messages });
  }
  throw new ResourceNotFoundError(uri);
}

function decode(segment: string): string | undefined {
  try {
    const text = decodeURIComponent(segment);
    return text.length > 0 && text.length <= 200 ? text : undefined;
  } catch {
    return undefined;
  }
}
