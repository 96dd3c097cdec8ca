/**
 * Starting a run: its row is written while the turn's context loads (two
 * statements at once where the database serves them so), and the run's
 * events still come in their order — the run's number first, then the
 * context. When the row cannot be written, the request fails as before,
 * whatever the context load did meanwhile.
 */
import assert from "node:assert/strict";
import type { LoopEvent } from "../../shared/contracts.ts";
import { isAppError } from "../../shared/errors.ts";
import type { LoadContextInput } from "../../shared/ports.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { ALICE, countedTools, runsLoop } from "../support/runs_fixture.ts";

/** A loop whose run store's `create` answers once the context load has begun, if it does. */
function createWaitsForContext() {
  const loop = runsLoop({
    planner: new ScriptedPlanner([{ tool: "finalize_summary", args: {} }]),
    tools: countedTools([]),
  });
  const { runStore, store } = loop;
  const order: string[] = [];
  let contextBegun: () => void = () => {};
  const begun = new Promise<void>((resolve) => contextBegun = resolve);
  const loadContext = store.loadContext.bind(store);
  store.loadContext = (input: LoadContextInput) => {
    order.push("context load begins");
    contextBegun();
    return loadContext(input);
  };
  const create = runStore.create.bind(runStore);
  runStore.create = async (...args: Parameters<typeof create>) => {
    order.push("run row asked for");
    // A load that has not begun within ten turns of the event loop is not coming first.
    const turns = (async () => {
      for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    })();
    await Promise.race([begun, turns]);
    order.push("run row written");
    return await create(...args);
  };
  return { ...loop, order };
}

Deno.test("the run's row is written while the context loads; the run's number still comes first", async () => {
  const { runner, runStore, order } = createWaitsForContext();
  const events: LoopEvent[] = [];
  const response = await runner.run(loopRequest("what can you do?"), {
    caller: ALICE,
    onEvent: (event) => events.push(event),
  });
  assert.equal(response.success, true);
  assert.deepEqual(order, ["run row asked for", "context load begins", "run row written"]);
  assert.deepEqual(events.slice(0, 2).map((event) => event.type), ["run", "context"]);
  const stored = await runStore.events(ALICE, response.data.runId!, 0, 100);
  assert.deepEqual(stored.slice(0, 2).map((event) => [event.seq, event.type]), [
    [1, "run"],
    [2, "context"],
  ]);
});

Deno.test("a run whose row cannot be written fails with DB_UNAVAILABLE, whatever its context load did", async () => {
  for (const contextFails of [false, true]) {
    const { runner, runStore, store } = runsLoop({
      planner: new ScriptedPlanner([{ tool: "finalize_summary", args: {} }]),
      tools: countedTools([]),
    });
    if (contextFails) {
      store.loadContext = () => Promise.reject(new Error("the context's connection dropped"));
    }
    runStore.create = async () => {
      await new Promise((resolve) => setTimeout(resolve, 0)); // after the context load settled
      throw new Error("the run's connection dropped");
    };
    const events: LoopEvent[] = [];
    await assert.rejects(
      runner.run(loopRequest("hello there"), { caller: ALICE, onEvent: (e) => events.push(e) }),
      (error) => {
        assert.ok(isAppError(error));
        assert.equal(error.code, "DB_UNAVAILABLE");
        assert.match(error.message, /Could not record the run.*run's connection dropped/);
        return true;
      },
    );
    assert.deepEqual(events, [], "no run, so no event of it");
    assert.equal(store.rows.length, 0, "no turn stored");
  }
});
