import assert from "node:assert/strict";
import { ActionResult, MCPRequest, MCPResponse, PlannedAction } from "../shared/contracts.ts";

const valid = {
  mode: "candidate",
  sessionId: "s-1",
  messages: [{ role: "user", content: "hi" }],
};

Deno.test("MCPRequest accepts the seed's shape with its optional fields", () => {
  const parsed = MCPRequest.parse({
    ...valid,
    context: { profileId: "abc" },
    plannerRecommendations: [{ tool: "getDevelopmentPlan" }],
    availableTools: [{ name: "getCapabilityGaps", description: "gaps" }],
  });
  assert.equal(parsed.mode, "candidate");
  assert.deepEqual(parsed.availableTools, [{ name: "getCapabilityGaps", description: "gaps" }]);
});

Deno.test("MCPRequest accepts exactly the four modes", () => {
  for (const mode of ["analyst", "candidate", "hiring", "general"]) {
    assert.equal(MCPRequest.safeParse({ ...valid, mode }).success, true, mode);
  }
  assert.equal(MCPRequest.safeParse({ ...valid, mode: "admin" }).success, false);
});

Deno.test("MCPRequest rejects missing or empty sessionId, no messages and unknown fields", () => {
  const { sessionId: _omit, ...noSession } = valid;
  for (
    const bad of [
      noSession,
      { ...valid, sessionId: "" },
      { ...valid, messages: [] },
      { ...valid, extra: true },
      { ...valid, messages: [{ role: "robot", content: "x" }] },
      { ...valid, messages: [{ role: "user", content: 42 }] },
      { ...valid, messages: [{ role: "user", content: "x".repeat(32_001) }] },
    ]
  ) {
    assert.equal(MCPRequest.safeParse(bad).success, false, JSON.stringify(bad).slice(0, 80));
  }
});

Deno.test("MCPRequest takes maxRounds 1–5 and a refinement of one of the four loop types", () => {
  const parsed = MCPRequest.parse({
    ...valid,
    maxRounds: 2,
    refinement: { loopType: "build_code", loopId: "0a1b2c3d" },
  });
  assert.equal(parsed.maxRounds, 2);
  assert.deepEqual(parsed.refinement, { loopType: "build_code", loopId: "0a1b2c3d" });
  for (
    const bad of [
      { maxRounds: 0 },
      { maxRounds: 1.5 },
      { refinement: { loopType: "code" } },
      { refinement: {} },
      { refinement: { loopType: "spec", loopId: "ABCDEF12" } },
    ]
  ) {
    assert.equal(MCPRequest.safeParse({ ...valid, ...bad }).success, false, JSON.stringify(bad));
  }
});

Deno.test("MCPRequest refuses context keys the loop sets itself", () => {
  const result = MCPRequest.safeParse({ ...valid, context: { sessionId: "other" } });
  assert.equal(result.success, false);
  assert.deepEqual(result.error?.issues[0].path, ["context", "sessionId"]);
});

Deno.test("PlannedAction defaults args to {} and ActionResult requires success and duration", () => {
  assert.deepEqual(PlannedAction.parse({ tool: "x" }), { tool: "x", args: {} });
  assert.equal(ActionResult.safeParse({ tool: "x", input: {}, output: 1 }).success, false);
  assert.equal(
    ActionResult.safeParse({ tool: "x", input: {}, output: 1, success: true, durationMs: 1 })
      .success,
    true,
  );
});

Deno.test("MCPResponse has the seed's data fields", () => {
  const response = {
    success: true,
    data: {
      context: {},
      intermediateResults: [],
      plan: [],
      semanticMatches: [],
      summaryMessage: "ok",
    },
  };
  assert.equal(MCPResponse.safeParse(response).success, true);
  assert.equal(MCPResponse.safeParse({ success: true, data: { context: {} } }).success, false);
});
