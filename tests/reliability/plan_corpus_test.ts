/**
 * Random plans across rounds — unknown tools, wrong args, step references
 * with random pointers, to any step — never break a run: each ends with a
 * response or with a planner/args error a client can act on, never INTERNAL,
 * and a run that ends well has stored its turn.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { z } from "zod";
import { isAppError } from "../../shared/errors.ts";
import type { PlanInput } from "../../shared/ports.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest } from "../support/loop_fixture.ts";

const tools = [
  defineTool({
    name: "make",
    description: "Make a thing",
    argsSchema: z.object({ name: z.string() }),
    outputSchema: z.object({ id: z.string(), parts: z.array(z.string()) }),
    annotations: { readOnlyHint: true },
    run: ({ args }) => ({ id: `id-${args.name}`, parts: ["a", "b"] }),
  }),
  defineTool({
    name: "use",
    description: "Use a thing",
    argsSchema: z.object({ id: z.string(), count: z.int().min(0).optional() }),
    run: ({ args }) => `used ${args.id}`,
  }),
];

const pointer = fc.oneof(
  fc.integer({ min: -1, max: 12 }).chain((n) =>
    fc.constantFrom(
      `/steps/${n}/output`,
      `/steps/${n}/output/id`,
      `/steps/${n}/output/parts/0`,
      `/steps/${n}/output/parts/9`,
      `/steps/${n}/output/a~1b`,
      `/steps/${n}/output/a~2`,
      `/steps/${n}/input`,
    )
  ),
  fc.string({ maxLength: 20 }).map((s) => `/steps/${s}`),
);
const value = fc.oneof(fc.jsonValue(), pointer.map(($ref) => ({ $ref })));
const step = fc.record({
  tool: fc.constantFrom("make", "use", "finalize_summary", "nope", ""),
  args: fc.oneof(
    fc.record({ name: value }),
    fc.record({ id: value, count: fc.oneof(value, fc.integer()) }),
    fc.dictionary(fc.string({ maxLength: 5 }), value, { maxKeys: 3 }),
  ),
});
const rounds = fc.array(fc.array(step, { maxLength: 6 }), { minLength: 1, maxLength: 4 });

Deno.test("200 random multi-round plans with step references: no run ends INTERNAL, and finished runs are stored", async () => {
  const plans = fc.sample(rounds, { numRuns: 200, seed: 20261122 });
  const failures: string[] = [];
  for (const [i, script] of plans.entries()) {
    const store = new MemoryConversationStore();
    const planner = new ScriptedPlanner((input: PlanInput) => script[(input.round ?? 1) - 1] ?? []);
    const { runner } = buildLoop({
      planner,
      tools,
      store,
      options: { invalidArgs: i % 2 ? "skip" : "fail" },
    });
    try {
      const { data } = await runner.run(loopRequest(`plan ${i}`, { maxRounds: 4 }));
      if (store.rows.length === 0) failures.push(`${i}: the turn was not stored`);
      if (data.intermediateResults.some((r) => !r.success && !r.code)) {
        failures.push(`${i}: a failed step without a code`);
      }
    } catch (error) {
      const code = isAppError(error) ? error.code : `not an AppError: ${error}`;
      if (!["TOOL_ARGS_INVALID", "PLANNER_INVALID_OUTPUT"].includes(code)) {
        failures.push(`${i}: ${code} — ${JSON.stringify(script).slice(0, 200)}`);
      }
    }
  }
  assert.deepEqual(failures, []);
});
