/**
 * `deno task bench runs`: what persisting runs costs, on PGlite (in process,
 * migrated) and on Postgres when `MCP_LOOP_BENCH_POSTGRES_URL` names one (with
 * pgvector and the migrations applied, or applied here):
 *
 * - a checkpoint: one `save` of a run's state after a round (plan, entries
 *   with ~1 KB outputs, events), as the rounds write it;
 * - a round with and without a run store: the loop's own time per round with
 *   the checkpoints included (three rounds of one step, offline);
 * - an approval to the resumed run's first event: `resume` with the decision
 *   until its first progress event (offline defaults: scripted planner,
 *   hashing embedder).
 */
import { z } from "zod";
import { PostgresSql } from "../../shared/adapters/postgres/postgres_sql.ts";
import type { Sql } from "../../shared/ports.ts";
import { initialCheckpoint } from "../../shared/runs/checkpoint.ts";
import { RunEngine } from "../../shared/runs/engine.ts";
import { SqlApprovalStore } from "../../shared/store/sql_approval_store.ts";
import { applyMigrations } from "../../shared/store/migrations.ts";
import { SqlConversationStore } from "../../shared/store/sql_conversation_store.ts";
import { SqlRunStore } from "../../shared/store/sql_run_store.ts";
import { SqlAuditLog } from "../../shared/store/sql_audit_log.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest } from "../support/loop_fixture.ts";
import { sharedPglite } from "../support/pglite.ts";
import { type BenchResult, measure } from "./harness.ts";

const caller = { userId: null, owner: "key:runs-bench" };

/** A run's checkpoint after `rounds` rounds of one step whose output is ~1 KB. */
function checkpointAfter(rounds: number) {
  const output = {
    items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i} of a list` })),
  };
  return {
    ...initialCheckpoint({ maxRounds: 5, budgetMs: 10_000 }),
    roundsDone: rounds,
    plan: Array.from(
      { length: rounds },
      (_, i) => ({ tool: "read", args: { n: i }, round: i + 1 }),
    ),
    results: Array.from({ length: rounds }, (_, i) => ({
      tool: "read",
      input: { n: i },
      output,
      success: true,
      durationMs: 1,
      round: i + 1,
    })),
  };
}

async function storeRows(label: string, sql: Sql): Promise<BenchResult[]> {
  const store = new SqlRunStore(sql);
  const request = loopRequest("bench");
  const run = await store.create(caller, {
    sessionId: request.sessionId,
    request,
    checkpoint: initialCheckpoint({ maxRounds: 5, budgetMs: 10_000 }),
    leaseMs: 60_000,
  });
  let version = run.version;
  const checkpoint = checkpointAfter(3);
  const events = [
    { type: "plan", data: { round: 3, plan: checkpoint.plan.slice(-1) } },
    { type: "step_end", data: { index: 2, round: 3, result: checkpoint.results[2] } },
  ];
  const save = await measure(`${label}: checkpoint after round 3 (state + 2 events)`, async () => {
    const saved = await store.save(caller, run.id, {
      from: ["running"],
      version,
      status: "running",
      checkpoint,
      events,
      leaseMs: 60_000,
    });
    version = saved!.version;
  }, { iterations: 500, warmup: 50 });

  // Three rounds of one step each, with and without the run store (checkpoints included).
  const tools = [defineTool({
    name: "read",
    description: "Read",
    argsSchema: z.object({ n: z.int() }),
    annotations: { readOnlyHint: true },
    run: ({ args }) => checkpoint.results[0].output ?? args,
  })];
  const planner = () =>
    new ScriptedPlanner((input) =>
      (input.round ?? 1) < 3
        ? [{ tool: "read", args: { n: input.round ?? 1 } }]
        : [{ tool: "read", args: { n: 3 } }, { tool: "finalize_summary", args: {} }]
    );
  const conversations = new SqlConversationStore(sql);
  const runs = new RunEngine({
    store,
    approvals: new SqlApprovalStore(sql),
    audit: new SqlAuditLog(sql),
  });
  const plain = buildLoop({ planner: planner(), tools, store: conversations });
  const persisted = buildLoop({ planner: planner(), tools, store: conversations, runs });
  const three = (runner: typeof plain.runner) => () =>
    runner.run(loopRequest("read three times", { maxRounds: 3 }), { caller });
  const without = await measure(`${label}: 3 rounds, no run store`, three(plain.runner), {
    iterations: 200,
    warmup: 20,
  });
  const withRuns = await measure(`${label}: 3 rounds, persisted run`, three(persisted.runner), {
    iterations: 200,
    warmup: 20,
  });
  const perRound = (withRuns.medianMs - without.medianMs) / 3;

  // An approval to the resumed run's first event.
  const writes = buildLoop({
    planner: new ScriptedPlanner([{ tool: "write", args: {} }, {
      tool: "finalize_summary",
      args: {},
    }]),
    tools: [defineTool({
      name: "write",
      description: "Write",
      argsSchema: z.object({}),
      annotations: { destructiveHint: true },
      run: () => ({ ok: true }),
    })],
    store: conversations,
    runs,
  });
  const firstEvents: number[] = [];
  for (let i = 0; i < 110; i++) {
    const paused = await writes.runner.run(loopRequest("write it"), { caller });
    const [pending] = paused.data.pendingApprovals!;
    const started = performance.now();
    let first = 0;
    await writes.runner.resume(paused.data.runId!, {
      caller,
      approvals: [{ id: pending.id, approved: true }],
      onEvent: () => {
        first ||= performance.now() - started;
      },
    });
    if (i >= 10) firstEvents.push(first); // the first ten warm up
  }
  firstEvents.sort((a, b) => a - b);
  const resume: BenchResult = {
    name: `${label}: approval → the resumed run's first event`,
    iterations: firstEvents.length,
    medianMs: firstEvents[firstEvents.length >> 1],
    p99Ms: firstEvents[Math.floor(firstEvents.length * 0.99)],
    meanMs: firstEvents.reduce((a, b) => a + b, 0) / firstEvents.length,
    perSecond: NaN,
  };
  return [save, without, withRuns, resume, {
    name: `${label}: a persisted round's extra time (median difference / 3)`,
    iterations: 200,
    medianMs: perRound,
    p99Ms: NaN,
    meanMs: NaN,
    perSecond: NaN,
  }];
}

/** Runs the runs benchmarks. */
export async function runsBenchmarks(): Promise<BenchResult[]> {
  const rows = await storeRows("PGlite", await sharedPglite());
  const url = Deno.env.get("MCP_LOOP_BENCH_POSTGRES_URL");
  if (url) {
    const sql = new PostgresSql({ url });
    try {
      await applyMigrations(sql);
      rows.push(...await storeRows("Postgres", sql));
    } finally {
      await sql.close();
    }
  }
  return rows;
}
