import assert from "node:assert/strict";
import { isAppError } from "../../shared/errors.ts";
import { extractJson, parsePlanText } from "../../shared/planner/plan_parser.ts";

const plan = [{ tool: "a", args: { x: 1 } }];

Deno.test("a bare JSON array is the plan", () => {
  assert.deepEqual(parsePlanText(JSON.stringify(plan)), plan);
});

Deno.test("markdown fences are removed", () => {
  assert.deepEqual(parsePlanText("```json\n" + JSON.stringify(plan) + "\n```"), plan);
  assert.deepEqual(parsePlanText("```\n" + JSON.stringify(plan) + "\n```"), plan);
});

Deno.test("prose around the JSON is ignored, even with brackets inside strings", () => {
  const text =
    `Sure! Here is the plan [as requested]:\n[{"tool": "a", "args": {"note": "uses ] and ["}}]\nHope it helps.`;
  assert.deepEqual(parsePlanText(text), [{ tool: "a", args: { note: "uses ] and [" } }]);
});

Deno.test("a plan wrapped in an object is unwrapped", () => {
  assert.deepEqual(parsePlanText(JSON.stringify({ plan })), plan);
  assert.deepEqual(parsePlanText(JSON.stringify({ steps: plan })), plan);
  assert.deepEqual(parsePlanText(JSON.stringify({ whatever: plan })), plan);
  assert.deepEqual(parsePlanText(JSON.stringify(plan[0])), plan);
});

Deno.test("text without JSON is PLANNER_INVALID_OUTPUT carrying the raw text", () => {
  assert.throws(() => parsePlanText("I would call the weather tool."), (e) => {
    assert.ok(isAppError(e));
    assert.equal(e.code, "PLANNER_INVALID_OUTPUT");
    assert.equal((e.details as { raw: string }).raw, "I would call the weather tool.");
    return true;
  });
});

Deno.test("the raw text in the error is truncated", () => {
  assert.throws(() => parsePlanText("x".repeat(5_000)), (e) => {
    assert.ok(isAppError(e));
    assert.match((e.details as { raw: string }).raw, /^x{2000}… \(3000 more characters\)$/);
    return true;
  });
});

Deno.test("extractJson returns undefined for unbalanced brackets", () => {
  assert.equal(extractJson("[{"), undefined);
});
