import assert from "node:assert/strict";
import { createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import type { Caller } from "../../shared/ports.ts";
import type { RefinementStore } from "../../shared/store/refinement_store_port.ts";
import { LoopNotFoundError, LoopStateError } from "../../shared/errors.ts";
import type { LoopOutput } from "../../shared/contracts.ts";
import { createRefinementTools } from "../../shared/refinement/refinement_tools.ts";
import { SqlRefinementStore } from "../../shared/store/sql_refinement_store.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { PgliteSql } from "../../shared/adapters/pglite/pglite_sql.ts";
import { MemoryRefinementStore } from "../fakes/memory_refinement_store.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { sharedPglite } from "../support/pglite.ts";
import { initializedDataDir } from "../support/process.ts";
import { post, validBody } from "../support/test_app.ts";

function registryWith(
  store: RefinementStore = new MemoryRefinementStore(),
  settings?: Parameters<typeof createRefinementTools>[0]["settings"],
) {
  const registry = new ToolRegistry();
  for (const tool of createRefinementTools({ store, settings })) registry.register(tool);
  return registry;
}

const caller = (): Caller => ({ userId: null, owner: `key:${crypto.randomUUID()}` });

/** Calls a tool the way the executor and the MCP server do: parse the args, then run. */
async function call(registry: ToolRegistry, name: string, args: unknown, who: Caller) {
  const tool = registry.get(name)!;
  const parsed = tool.argsSchema.safeParse(args);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join("; "));
  return await tool.run({
    args: parsed.data,
    context: {},
    results: [],
    caller: who,
    signal: new AbortController().signal,
  });
}

async function statuses(registry: ToolRegistry, who: Caller, loopType: string, scores: number[]) {
  const loop = await call(
    registry,
    "initialize_refinement_loop",
    { loop_type: loopType },
    who,
  ) as LoopOutput;
  const seen: string[] = [];
  for (const score of scores) {
    seen.push(
      (await call(
        registry,
        "decide_loop_next_action",
        { loop_id: loop.id, current_score: score },
        who,
      ) as LoopOutput).status,
    );
  }
  return { loop, seen };
}

Deno.test("the four tools are registered with the specification's names", () => {
  assert.deepEqual(registryWith().list().map((t) => t.name), [
    "initialize_refinement_loop",
    "decide_loop_next_action",
    "get_loop_status",
    "list_active_loops",
  ]);
});

Deno.test("initialize returns {id, status} plus the loop's settings and timestamps", async () => {
  const registry = registryWith();
  const loop = await call(
    registry,
    "initialize_refinement_loop",
    { loop_type: "build_plan" },
    caller(),
  ) as LoopOutput;
  assert.match(loop.id, /^[0-9a-f]{8}$/);
  assert.equal(loop.status, "initialized");
  assert.deepEqual(
    [
      loop.loop_type,
      loop.current_score,
      loop.score_history,
      loop.iteration,
      loop.threshold,
      loop.max_iterations,
    ],
    ["build_plan", null, [], 0, 80, 5],
  );
  assert.ok(Date.parse(loop.created_at) > 0 && Date.parse(loop.updated_at) > 0);
});

Deno.test("through the registry the specification's sequences give exactly its statuses", async () => {
  const registry = registryWith();
  const who = caller();
  assert.deepEqual((await statuses(registry, who, "spec", [70, 90])).seen, ["refine", "completed"]);
  assert.deepEqual((await statuses(registry, who, "plan", [50, 65, 70, 73, 75])).seen, [
    "refine",
    "refine",
    "refine",
    "refine",
    "user_input",
  ]);
  assert.deepEqual((await statuses(registry, who, "build_code", [10, 20, 30, 40, 50, 60])).seen, [
    "refine",
    "refine",
    "refine",
    "refine",
    "refine",
    "user_input",
  ]);
});

Deno.test("get_loop_status and list_active_loops report what the decisions did", async () => {
  const registry = registryWith();
  const who = caller();
  const { loop } = await statuses(registry, who, "plan", [45, 62, 72]);
  const status = await call(registry, "get_loop_status", { loop_id: loop.id }, who) as LoopOutput;
  assert.deepEqual([status.status, status.current_score, status.score_history, status.iteration], [
    "refine",
    72,
    [45, 62, 72],
    3,
  ]);
  const { loops } = await call(registry, "list_active_loops", {}, who) as { loops: LoopOutput[] };
  assert.deepEqual(loops.map((l) => l.id), [loop.id]);
});

Deno.test("settings from the environment set each type's threshold and limit", async () => {
  const config = loadConfig({ FSDD_LOOP_SPEC_THRESHOLD: "60", FSDD_LOOP_SPEC_MAX_ITERATIONS: "1" });
  const registry = registryWith(new MemoryRefinementStore(), config.refinement);
  const who = caller();
  const { loop, seen } = await statuses(registry, who, "spec", [40, 50, 61]);
  assert.deepEqual([loop.threshold, loop.max_iterations], [60, 1]);
  assert.deepEqual(seen, ["refine", "user_input", "completed"]);
});

Deno.test("bad inputs get clear errors: loop type, score range, unknown and foreign ids, completed loops", async () => {
  const registry = registryWith();
  const who = caller();
  await assert.rejects(
    call(registry, "initialize_refinement_loop", { loop_type: "design" }, who),
    /loop_type must be one of plan, spec, build_plan, build_code/,
  );
  const { loop } = await statuses(registry, who, "spec", [90]);
  for (const score of [-1, 101, 55.5, "80"]) {
    await assert.rejects(
      call(registry, "decide_loop_next_action", { loop_id: loop.id, current_score: score }, who),
      /current_score must be an integer from 0 to 100/,
      String(score),
    );
  }
  await assert.rejects(
    call(registry, "get_loop_status", { loop_id: "nothex!" }, who),
    /8 lowercase hex characters/,
  );
  await assert.rejects(
    call(registry, "get_loop_status", { loop_id: "deadbeef" }, who),
    LoopNotFoundError,
  );
  await assert.rejects(
    call(registry, "get_loop_status", { loop_id: loop.id }, caller()),
    LoopNotFoundError,
  );
  await assert.rejects(
    call(registry, "decide_loop_next_action", { loop_id: loop.id, current_score: 95 }, who),
    (e) => e instanceof LoopStateError && e.code === "LOOP_STATE" && e.status === 409,
  );
});

Deno.test("the score schema is an integer from 0 to 100, and status tools are read-only", () => {
  const registry = registryWith();
  const decideTool = registry.get("decide_loop_next_action")!;
  assert.deepEqual((decideTool.inputSchema.properties as Record<string, unknown>).current_score, {
    type: "integer",
    minimum: 0,
    maximum: 100,
    description: "Quality score of the latest version, 0 to 100",
  });
  assert.equal(registry.get("get_loop_status")!.annotations?.readOnlyHint, true);
  assert.equal(registry.get("list_active_loops")!.annotations?.readOnlyHint, true);
  assert.equal(decideTool.annotations?.readOnlyHint, false);
});

Deno.test("a signed-in user's loops are private to them under RLS", async () => {
  const store = new SqlRefinementStore(await sharedPglite());
  const registry = registryWith(store);
  const user = (id = crypto.randomUUID()): Caller => ({
    userId: id,
    owner: `user:${id}`,
    claims: { sub: id, role: "authenticated" },
  });
  const [alice, bob] = [user(), user()];
  const { loop } = await statuses(registry, alice, "spec", [70]);
  assert.equal(
    (await call(registry, "get_loop_status", { loop_id: loop.id }, alice) as LoopOutput).status,
    "refine",
  );
  await assert.rejects(
    call(registry, "get_loop_status", { loop_id: loop.id }, bob),
    LoopNotFoundError,
  );
  const [row] = await (await sharedPglite()).query<{ user_id: string }>(
    "select user_id::text from refinement_loops where id = $1",
    [loop.id],
  );
  assert.equal(row.user_id, alice.userId);
});

Deno.test("a loop created before a restart still answers get_loop_status", async () => {
  const dataDir = await initializedDataDir(); // migrated already
  const who = caller();
  try {
    const first = await PgliteSql.open({ dataDir });
    const { loop } = await statuses(registryWith(new SqlRefinementStore(first)), who, "plan", [
      50,
      65,
    ]);
    await first.close();
    const second = await PgliteSql.open({ dataDir });
    const status = await call(registryWith(new SqlRefinementStore(second)), "get_loop_status", {
      loop_id: loop.id,
    }, who) as LoopOutput;
    await second.close();
    assert.deepEqual([status.status, status.score_history, status.iteration], [
      "refine",
      [50, 65],
      2,
    ]);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("through POST /mcp-loop the heuristic planner starts a spec loop when asked", async () => {
  const app = createApp(loadConfig({}), {
    sql: await sharedPglite(),
    logger: new RecordingLogger(),
  });
  const res = await app.fetch(post(validBody("start a spec refinement loop")));
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  assert.deepEqual(json.data.plan, [
    { tool: "initialize_refinement_loop", args: { loop_type: "spec" }, round: 1 },
    { tool: "finalize_summary", args: {}, round: 1 },
  ]);
  const loop = json.data.context.initialize_refinement_loop;
  assert.equal(loop.status, "initialized");
  assert.equal(loop.loop_type, "spec");
  assert.match(
    json.data.summaryMessage,
    /^I started a spec refinement loop with id [0-9a-f]{8}: it completes at a score of 85/,
  );
});

Deno.test("through POST /mcp-loop a score for a loop named in the message is decided", async () => {
  const app = createApp(loadConfig({}), {
    sql: await sharedPglite(),
    logger: new RecordingLogger(),
  });
  const started = await (await app.fetch(post(validBody("start a plan refinement loop")))).json();
  const id = started.data.context.initialize_refinement_loop.id;
  const res = await app.fetch(
    post(validBody(`decide the next action for loop ${id} with score 72`)),
  );
  const json = await res.json();
  assert.deepEqual(json.data.plan[0], {
    tool: "decide_loop_next_action",
    args: { loop_id: id, current_score: 72 },
    round: 1,
  });
  assert.equal(json.data.context.decide_loop_next_action.status, "refine");
});
