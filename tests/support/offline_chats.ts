/**
 * Chats with the function as shipped (the offline planner, the hashing
 * embedder, PGlite from an initialized folder, the application's tools): each
 * chat is a caller of its own with a memory and loops of their own, and each
 * call sends its next message.
 */
import assert from "node:assert/strict";
import tools from "../../functions/mcp-loop/tools.ts";
import { createLoop } from "../../shared/app/create_loop.ts";
import type { MCPResponse } from "../../shared/contracts.ts";
import { initializedDataDir } from "./process.ts";

/** What a loop request answered. */
export type Data = MCPResponse["data"];
/** A planned step: the tool and its args. */
export type Step = [string, Record<string, unknown>];

/** The loop, a way to open a new chat on it, and how to read a reply's steps. */
export async function offlineChats() {
  const loop = createLoop({
    tools,
    dataDir: await initializedDataDir(),
    env: { MCP_LOOP_LOG_LEVEL: "error" },
  });
  /** A caller of their own, in one chat: each call sends the next message. */
  const newChat = (name: string) => {
    const caller = { userId: null, owner: `key:${name}-${crypto.randomUUID()}` };
    const sessionId = `${name}-${crypto.randomUUID()}`;
    return async (content: string): Promise<Data> =>
      (await loop.run({ mode: "general", sessionId, messages: [{ role: "user", content }] }, {
        caller,
      })).data;
  };
  return { loop, newChat };
}

/** The steps a reply planned, besides the summary. */
export function steps(data: Data): Step[] {
  return data.plan.filter((step) => step.tool !== "finalize_summary").map((step) => [
    step.tool,
    step.args,
  ]);
}

/** The time read for `place`. */
export function time(place: string): Step {
  return ["get_current_time", { time_zone: place }];
}

/** The id of the loop a reply started ("… loop with id 3f0c9a1e …"). */
export function loopIdOf(data: Data): string {
  return /loop with id ([0-9a-f]{8})/.exec(data.summaryMessage!)![1];
}

/** The step that records `value` for loop `id`. */
export function score(id: string, value: number): Step {
  return ["decide_loop_next_action", { loop_id: id, current_score: value }];
}

/** Sends each message in turn: each plans nothing and gets a reply matching its pattern. */
export async function assertRepliesOnly(
  say: (content: string) => Promise<Data>,
  replies: readonly [string, RegExp][],
): Promise<void> {
  for (const [message, reply] of replies) {
    const data = await say(message);
    assert.deepEqual(steps(data), [], message);
    assert.match(data.summaryMessage!, reply, message);
  }
}

/** Sends each message in turn: each keeps its fact, and only that. */
export async function assertKept(
  say: (content: string) => Promise<Data>,
  kept: readonly [string, string][],
): Promise<void> {
  for (const [message, fact] of kept) {
    assert.deepEqual(steps(await say(message)), [["remember", { fact }]], message);
  }
}
