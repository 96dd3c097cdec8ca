/**
 * What the offline planner understands about memory, in English: "remember
 * that …" plans `remember`, "forget this conversation" plans
 * `forget_session`, and "forget …" plans `forget` — when those tools are
 * offered. Anything else is left to the ranking of tools.
 */
import type { PlannedAction } from "../contracts.ts";
import type { PlannerTool } from "../ports.ts";

const REMEMBER = /^\s*(?:please\s+)?(?:can you\s+)?remember(?:\s+that|\s*:)\s+(.+?)[\s.!]*$/is;
const FORGET_SESSION =
  /^\s*(?:please\s+)?forget\s+(?:this|the current|our)\s+(?:session|conversation|chat)\b/i;
const FORGET = /^\s*(?:please\s+)?forget(?:\s+that|\s+about|\s*:)?\s+(.+?)[\s.!]*$/is;

/** The memory step `message` asks for, if it asks for one the tools offer. */
export function memoryIntent(
  message: string,
  tools: readonly PlannerTool[],
): PlannedAction | undefined {
  const offered = (name: string) => tools.some((tool) => tool.name === name);
  const remember = REMEMBER.exec(message);
  if (remember && offered("remember")) {
    return { tool: "remember", args: { fact: clip(remember[1]) } };
  }
  if (FORGET_SESSION.test(message)) {
    return offered("forget_session") ? { tool: "forget_session", args: {} } : undefined;
  }
  const forget = FORGET.exec(message);
  if (forget && offered("forget")) return { tool: "forget", args: { what: clip(forget[1]) } };
  return undefined;
}

function clip(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 500);
}
