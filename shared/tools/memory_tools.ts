/**
 * The memory tools: `remember` and `forget` update the caller's working memory
 * (see `memory/working_memory.ts`); `forget_session` deletes one of the
 * caller's conversations. The offline planner plans them for "remember that
 * …", "forget …" and "forget this conversation".
 */
import { z } from "zod";
import {
  addFact,
  forgetFromMemory,
  type MemoryShape,
  memoryStatements,
  mergeMemory,
  updateMemory,
} from "../memory/working_memory.ts";
import { type CallerDataStore, deletedNothing } from "../store/caller_data_port.ts";
import type { WorkingMemoryStore } from "../store/working_memory_port.ts";
import { defineTool, type ToolDefinition } from "./tool.ts";

/** The memory tools' names. */
export const REMEMBER_TOOL = "remember";
export const FORGET_TOOL = "forget";
export const FORGET_SESSION_TOOL = "forget_session";

/** Builds `remember`, `forget` and `forget_session` over the stores. */
export function createMemoryTools(
  { memory, data, shape }: {
    memory: WorkingMemoryStore;
    data: CallerDataStore;
    shape: MemoryShape;
  },
): ToolDefinition[] {
  return [rememberTool({ memory, shape }), forgetTool({ memory, shape }), forgetSessionTool(data)];
}

/** `remember`: adds a fact, or merges fields into the caller's working memory. */
function rememberTool(
  { memory, shape }: { memory: WorkingMemoryStore; shape: MemoryShape },
): ToolDefinition {
  const RememberArgs = z.object({
    fact: z.string().trim().min(1).max(500).optional()
      .describe("One thing to remember, as a short sentence: 'my favourite colour is teal'"),
    memory: (shape.patch as z.ZodType<Record<string, unknown>>).optional()
      .describe(
        "Fields to set, merged into the working memory: objects are merged, lists and values replaced, null removes a field",
      ),
  });
  return defineTool({
    name: REMEMBER_TOOL,
    description:
      "Remember something about the user across conversations: add a fact, or set fields of your working memory (shown to you every turn as workingMemory). Use it when the user tells you something to keep, or asks you to remember it.",
    argsSchema: RememberArgs,
    annotations: { title: "Remember", readOnlyHint: false, destructiveHint: false },
    run: async ({ args, caller }) => {
      if (args.fact === undefined && args.memory === undefined) {
        throw new Error("Nothing to remember: give a fact, or the fields to set in memory");
      }
      if (args.fact !== undefined && !shape.hasFacts) {
        throw new Error(
          "This working memory has no facts list (option workingMemorySchema); set its fields with memory instead",
        );
      }
      const { document, changed } = await updateMemory(
        { store: memory, caller, shape },
        (doc) => {
          let next = args.memory ? mergeMemory(doc, args.memory) : doc;
          if (args.fact !== undefined) next = addFact(next, args.fact);
          return { document: next, report: undefined };
        },
      );
      return { remembered: args.fact ?? null, changed, memory: document };
    },
  });
}

/** `forget`: removes remembered items by their words, and fields by their paths. */
function forgetTool(
  { memory, shape }: { memory: WorkingMemoryStore; shape: MemoryShape },
): ToolDefinition {
  const ForgetArgs = z.object({
    what: z.string().trim().min(1).max(500).optional()
      .describe(
        "What to forget: every remembered item holding all of these words ('my favourite colour')",
      ),
    keys: z.array(z.string().min(1).max(200)).max(20).optional()
      .describe("Fields to remove, as dotted paths ('preferences')"),
    everything: z.boolean().optional()
      .describe("Forget every item and field: the user asks to clear their whole memory"),
  });
  return defineTool({
    name: FORGET_TOOL,
    description:
      "Forget something kept in your working memory: every item holding all the words of what, and the fields named in keys, or everything. Use it when the user asks you to forget something about them.",
    argsSchema: ForgetArgs,
    annotations: { title: "Forget", readOnlyHint: false, destructiveHint: false },
    // Forgetting one item is asked for by name; emptying the whole memory waits for a person.
    needsApproval: (args) => args.everything === true,
    run: async ({ args, caller }) => {
      const { what, keys, everything = false } = args;
      if (!everything && what === undefined && (keys ?? []).length === 0) {
        throw new Error("Nothing to forget: say what, give the keys to remove, or everything");
      }
      const { document, report } = await updateMemory({ store: memory, caller, shape }, (doc) => {
        const { document, removed } = everything
          ? { document: {}, removed: memoryStatements(doc) }
          : forgetFromMemory(doc, { what, keys });
        return { document, report: removed };
      });
      return { forgotten: report, ...(everything ? { everything } : {}), memory: document };
    },
  });
}

/** `forget_session`: deletes one of the caller's conversations (by default the current one). */
function forgetSessionTool(data: CallerDataStore): ToolDefinition {
  return defineTool({
    name: FORGET_SESSION_TOOL,
    description:
      "Delete a conversation of the user's for good: its messages, their vectors, its runs and its summary (by default the current one). Audit records of its tool calls keep no content.",
    argsSchema: z.object({
      session_id: z.string().min(1).max(200).optional()
        .describe("The session to delete (default: this conversation)"),
    }),
    annotations: { title: "Forget a conversation", readOnlyHint: false, destructiveHint: true },
    run: async ({ args, caller, context }) => {
      const sessionId = args.session_id ??
        (typeof context.sessionId === "string" ? context.sessionId : undefined);
      if (!sessionId) throw new Error("No session to forget: give session_id");
      // This run is still going: it stays, and stores the turn that asked.
      const deleted = await data.deleteSession(caller, sessionId, { keepRunning: true });
      // As DELETE /sessions/{id} answers 404: a named session with nothing in it is a
      // mistaken id. This conversation may have nothing stored yet, and that is no error.
      if (args.session_id !== undefined && deletedNothing(deleted)) {
        throw new Error(`You have no session "${sessionId}" to delete`);
      }
      return { sessionId, deleted };
    },
  });
}
