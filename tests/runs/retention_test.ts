/**
 * Runs and their events are kept for the retention (30 days by default) and
 * then swept: by the SQL function on the database, whoever's they are, at
 * most a bounded number at a time; by the engine at most once per ten
 * minutes of a process, in the background.
 */
import assert from "node:assert/strict";
import { initialCheckpoint } from "../../shared/runs/checkpoint.ts";
import { RunEngine } from "../../shared/runs/engine.ts";
import { SqlRunStore } from "../../shared/store/sql_run_store.ts";
import { MemoryApprovalStore } from "../fakes/memory_approval_store.ts";
import { MemoryRunStore } from "../fakes/memory_run_store.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest } from "../support/loop_fixture.ts";
import { sharedPglite } from "../support/pglite.ts";

const DAY = 86_400_000;

Deno.test("the sweep removes runs and their events last written before the retention's start, not newer or held ones", async () => {
  const sql = await sharedPglite();
  const store = new SqlRunStore(sql);
  const owner = `key:sweep-${crypto.randomUUID()}`;
  const caller = { userId: null, owner };
  const make = async (status: string, ageDays: number, leaseDays = 0) => {
    const run = await store.create(caller, {
      sessionId: "s",
      request: loopRequest("x"),
      checkpoint: initialCheckpoint({ maxRounds: 1, budgetMs: 1 }),
      leaseMs: 1,
      events: [{ type: "run", data: {} }],
    });
    await sql.query(
      `update public.mcp_runs set status = $2,
         updated_at = clock_timestamp() - make_interval(days => $3),
         lease_until = clock_timestamp() + make_interval(days => $4)
       where id = $1`,
      [run.id, status, ageDays, leaseDays],
    );
    return run.id;
  };
  const old = await make("completed", 40);
  const oldWaiting = await make("waiting_approval", 31);
  const recent = await make("completed", 2);
  const held = await make("running", 40, 1);
  const abandoned = await make("running", 40, -35);
  // Ours and anything else past the retention in the shared database.
  await store.sweep(new Date(Date.now() - 30 * DAY), 10_000);
  const left = await sql.query<{ id: string }>(
    "select id from public.mcp_runs where owner = $1 order by id",
    [owner],
  );
  assert.deepEqual(left.map((row) => row.id).sort(), [recent, held].sort());
  const [{ events }] = await sql.query<{ events: number }>(
    "select count(*)::int as events from public.mcp_run_events where run_id = any($1::uuid[])",
    [`{${old},${oldWaiting},${abandoned}}`],
  );
  assert.equal(events, 0, "the swept runs' events went with them");
});

Deno.test("the sweep takes at most its limit at a time", async () => {
  const store = new MemoryRunStore();
  const caller = { userId: null, owner: "key:limit" };
  for (let i = 0; i < 5; i++) {
    const run = await store.create(caller, {
      sessionId: "s",
      request: loopRequest("x"),
      checkpoint: initialCheckpoint({ maxRounds: 1, budgetMs: 1 }),
      leaseMs: 1,
    });
    const stored = store.runs.get(run.id)!;
    stored.record = { ...stored.record, status: "completed", updatedAt: "2020-01-01T00:00:00Z" };
  }
  assert.equal(await store.sweep(new Date(), 3), 3);
  assert.equal(store.runs.size, 2);
});

Deno.test("the engine sweeps past the retention at most once per ten minutes, in the background", async () => {
  const sweeps: Date[] = [];
  const store = new MemoryRunStore();
  store.sweep = (before: Date) => {
    sweeps.push(before);
    return Promise.resolve(0);
  };
  let now = Date.parse("2030-01-01T00:00:00Z");
  const kept: Promise<unknown>[] = [];
  const engine = new RunEngine({
    store,
    approvals: new MemoryApprovalStore(),
    retentionMs: 7 * DAY,
    now: () => now,
    keepAlive: (work) => kept.push(work),
  });
  const { runner } = buildLoop({
    planner: new ScriptedPlanner([{ tool: "finalize_summary", args: {} }]),
    runs: engine,
  });
  const caller = { userId: null, owner: "key:engine-sweep" };
  await runner.run(loopRequest("one"), { caller });
  now += 5 * 60_000;
  await runner.run(loopRequest("two"), { caller });
  now += 6 * 60_000;
  await runner.run(loopRequest("three"), { caller });
  await Promise.all(kept);
  assert.deepEqual(sweeps.map((before) => before.toISOString()), [
    "2029-12-25T00:00:00.000Z",
    "2029-12-25T00:11:00.000Z",
  ]);
});
