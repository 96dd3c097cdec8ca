/**
 * Which of a ranking's tools fill a limited number of slots, fairly between
 * their sources. A remote MCP server writes its own tools' names and
 * descriptions, so a catalog stuffed with the words people use can outrank
 * every other tool; ranked alone, 30 such tools took 23 of 26 offered slots
 * and pushed out the built-in tool the request was for. Here no remote server
 * gets more than its share (half the slots) while another source still has a
 * matching tool for them (a word of the request in its name, or two in its
 * words: `ScoredTool.matched`); the application's own and built-in tools have
 * no cap. Slots no other source can use with a match go to the best remaining
 * tools, so a catalog of one server still gets every slot. Matches fill the
 * slots first, in the ranking's order.
 */
import type { PlannerTool } from "../ports.ts";
import type { ScoredTool } from "./tool_index.ts";

/** How slots are shared. */
export interface FairShareOptions {
  /** How many tools to pick. */
  slots: number;
  /** The largest share of the slots one remote server gets while others have matches (default 0.5). */
  maxShare?: number;
}

/** The tools that fill `slots`, in the ranking's order (see the module doc). */
export function fairShare(
  ranked: readonly ScoredTool[],
  { slots, maxShare = 0.5 }: FairShareOptions,
): PlannerTool[] {
  const cap = Math.max(1, Math.ceil(slots * maxShare));
  const taken = new Set<ScoredTool>();
  const perSource = new Map<string, number>();
  const matching = ranked.filter((scored) => scored.matched);
  for (const scored of matching) {
    if (taken.size >= slots) break;
    const source = scored.tool.remote;
    if (source !== undefined && (perSource.get(source) ?? 0) >= cap) continue;
    taken.add(scored);
    if (source !== undefined) perSource.set(source, (perSource.get(source) ?? 0) + 1);
  }
  // Work-conserving: the slots left go to the best matches still out, then to the rest.
  for (const scored of [...matching, ...ranked]) {
    if (taken.size >= slots) break;
    taken.add(scored);
  }
  return ranked.filter((scored) => taken.has(scored)).map((scored) => scored.tool);
}
