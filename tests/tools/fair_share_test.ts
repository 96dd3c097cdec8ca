import assert from "node:assert/strict";
import type { PlannerTool } from "../../shared/ports.ts";
import { fairShare } from "../../shared/tools/fair_share.ts";
import type { ScoredTool } from "../../shared/tools/tool_index.ts";

const scored = (name: string, remote: string | undefined, matched: boolean): ScoredTool => {
  const tool: PlannerTool = { name, description: name, ...(remote ? { remote } : {}) };
  return { tool, lexical: matched ? 1 : 0, matched, score: 0 };
};

Deno.test("one remote server gets half the slots while another source has a matching tool", () => {
  const ranked = [
    ...["a1", "a2", "a3", "a4"].map((name) => scored(name, "a", true)),
    scored("b1", "b", true),
    scored("own1", undefined, true),
  ];
  assert.deepEqual(fairShare(ranked, { slots: 4 }).map((t) => t.name), ["a1", "a2", "b1", "own1"]);
});

Deno.test("the slots nobody else has a match for go to the best remaining tools, in rank order", () => {
  const ranked = [
    ...["a1", "a2", "a3", "a4"].map((name) => scored(name, "a", true)),
    scored("own1", undefined, true),
    scored("b1", "b", false),
  ];
  assert.deepEqual(fairShare(ranked, { slots: 4 }).map((t) => t.name), ["a1", "a2", "a3", "own1"]);
  assert.deepEqual(fairShare(ranked, { slots: 6 }).map((t) => t.name), [
    "a1",
    "a2",
    "a3",
    "a4",
    "own1",
    "b1",
  ]);
});

Deno.test("the application's own tools have no cap", () => {
  const ranked = ["o1", "o2", "o3"].map((name) => scored(name, undefined, true));
  assert.deepEqual(
    fairShare([...ranked, scored("a1", "a", true)], { slots: 3 }).map((t) => t.name),
    [
      "o1",
      "o2",
      "o3",
    ],
  );
});
