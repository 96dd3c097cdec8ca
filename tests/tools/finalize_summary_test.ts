import assert from "node:assert/strict";
import { describeValue, offlineSummary } from "../../shared/tools/finalize_summary.ts";

Deno.test("the offline summary has one readable line per step, failures included", () => {
  const text = offlineSummary({
    message: "start a spec refinement loop",
    mode: "general",
    results: [
      {
        tool: "initialize_refinement_loop",
        input: {},
        output: { id: "a1b2c3d4", status: "initialized", threshold: 85 },
        success: true,
        durationMs: 1,
      },
      { tool: "flaky", input: {}, output: null, success: false, error: "boom", durationMs: 1 },
    ],
  });
  assert.equal(
    text,
    'Ran 2 tools for "start a spec refinement loop" (1 failed):\n' +
      '- initialize_refinement_loop: id "a1b2c3d4", status "initialized", threshold 85\n' +
      "- flaky failed: boom",
  );
});

Deno.test("a later round's offline summary leaves out the earlier rounds' summaries", () => {
  const step = (tool: string, output: unknown) => ({
    tool,
    input: {},
    output,
    success: true,
    durationMs: 1,
  });
  const text = offlineSummary({
    message: "weather",
    mode: "general",
    results: [
      step("get_weather", { sky: "clear" }),
      step("finalize_summary", 'Ran 1 tool for "weather": …'),
      step("get_weather", { sky: "rain" }),
    ],
  });
  assert.equal(
    text,
    'Ran 2 tools for "weather":\n- get_weather: sky "clear"\n- get_weather: sky "rain"',
  );
});

Deno.test("the offline summary of no steps says no tools were needed", () => {
  assert.equal(
    offlineSummary({ message: "hi", mode: "general", results: [] }),
    'No tools were needed for "hi".',
  );
});

Deno.test("values render compactly: arrays count items, long strings are clipped", () => {
  assert.equal(describeValue([1, 2, 3, 4]), "4 items (1; 2; 3; …)");
  assert.equal(describeValue({ loops: [{ id: "x" }] }), "loops 1 item");
  assert.equal(describeValue("x".repeat(300)).length, 200);
  assert.equal(describeValue(null), "no output");
});
