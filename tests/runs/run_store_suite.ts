/**
 * The run store contract, run against every implementation (the in-memory
 * fake, SQL on PGlite and, when one is given, on Postgres), so the fake
 * cannot drift from the database.
 */
import assert from "node:assert/strict";
import type { Caller } from "../../shared/ports.ts";
import { initialCheckpoint } from "../../shared/runs/checkpoint.ts";
import type { RunStore } from "../../shared/runs/run_store.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { type SuiteOptions, suiteTest } from "../store/conversation_store_suite.ts";

/** Registers the suite for one store. */
export function runStoreSuite(
  name: string,
  makeStore: () => Promise<RunStore>,
  options: SuiteOptions = {},
): void {
  const test = suiteTest(options);
  const caller = (): Caller => ({ userId: null, owner: `key:runs-${crypto.randomUUID()}` });
  const checkpoint = initialCheckpoint({ maxRounds: 3, budgetMs: 1_000 });
  const request = loopRequest("hello");

  test(`${name}: a run is created running, with its first events numbered from 1`, async () => {
    const store = await makeStore();
    const who = caller();
    const run = await store.create(who, {
      sessionId: request.sessionId,
      request,
      checkpoint,
      leaseMs: 60_000,
      events: [{ type: "run", data: { runId: "x" } }, { type: "context", data: { n: 1 } }],
    });
    assert.equal(run.status, "running");
    assert.equal(run.version, 1);
    assert.equal(run.eventSeq, 2);
    assert.deepEqual(run.request, request);
    const events = await store.events(who, run.id, 0, 10);
    assert.deepEqual(events.map((e) => [e.seq, e.type]), [[1, "run"], [2, "context"]]);
    assert.deepEqual((await store.events(who, run.id, 1, 10)).map((e) => e.seq), [2]);
  });

  test(`${name}: a save wins only at the version and status it read; events are numbered on`, async () => {
    const store = await makeStore();
    const who = caller();
    const run = await store.create(who, {
      sessionId: request.sessionId,
      request,
      checkpoint,
      leaseMs: 60_000,
    });
    const base = {
      context: { a: 1 },
      message: "hello",
      embedding: [0.5, 0.25],
      embeddingModel: "m",
    };
    const saved = await store.save(who, run.id, {
      from: ["running"],
      version: 1,
      status: "waiting_approval",
      stopReason: "approval_required",
      checkpoint: { ...checkpoint, roundsDone: 1 },
      events: [{ type: "plan", data: { p: 1 } }, { type: "result", data: { r: 1 } }],
      base,
    });
    assert.deepEqual(saved, { version: 2, eventSeq: 2, cancelRequested: false });
    // The same version again, or the wrong status: nothing is written.
    assert.equal(
      await store.save(who, run.id, {
        from: ["running"],
        version: 1,
        status: "completed",
        checkpoint,
      }),
      undefined,
    );
    assert.equal(
      await store.save(who, run.id, {
        from: ["paused"],
        version: 2,
        status: "running",
        checkpoint,
      }),
      undefined,
    );
    const stored = await store.get(who, run.id);
    assert.equal(stored?.status, "waiting_approval");
    assert.equal(stored?.stopReason, "approval_required");
    assert.equal(stored?.checkpoint.roundsDone, 1);
    assert.deepEqual(stored?.base?.context, base.context);
    assert.deepEqual(stored?.base?.embedding.slice(0, 3), [0.5, 0.25, 0]);
    assert.deepEqual((await store.events(who, run.id, 0, 10)).map((e) => e.type), [
      "plan",
      "result",
    ]);
  });

  test(`${name}: another caller finds neither the run nor its events, and cannot change it`, async () => {
    const store = await makeStore();
    const who = caller();
    const other = caller();
    const run = await store.create(who, {
      sessionId: request.sessionId,
      request,
      checkpoint,
      leaseMs: 60_000,
      events: [{ type: "run", data: {} }],
    });
    assert.equal(await store.get(other, run.id), undefined);
    assert.deepEqual(await store.events(other, run.id, 0, 10), []);
    assert.equal(await store.requestCancel(other, run.id), undefined);
    assert.equal(
      await store.save(other, run.id, {
        from: ["running"],
        version: 1,
        status: "cancelled",
        checkpoint,
      }),
      undefined,
    );
    assert.equal((await store.get(who, run.id))?.status, "running");
    assert.equal(await store.get(who, "not-a-uuid"), undefined);
  });

  test(`${name}: a cancel request is seen by the next save`, async () => {
    const store = await makeStore();
    const who = caller();
    const run = await store.create(who, {
      sessionId: request.sessionId,
      request,
      checkpoint,
      leaseMs: 60_000,
    });
    assert.equal((await store.requestCancel(who, run.id))?.cancelRequested, true);
    const saved = await store.save(who, run.id, {
      from: ["running"],
      version: 1,
      status: "running",
      checkpoint,
      leaseMs: 1_000,
    });
    assert.equal(saved?.cancelRequested, true);
  });

  test(`${name}: a checkpoint keeps what JSON keeps: step holes come back as null`, async () => {
    const store = await makeStore();
    const who = caller();
    const results = [];
    results[1] = {
      tool: "t",
      input: {},
      output: { "a\u0000": "x\ud800" },
      success: true,
      durationMs: 1,
    };
    const run = await store.create(who, {
      sessionId: request.sessionId,
      request,
      checkpoint: { ...checkpoint, results },
      leaseMs: 60_000,
    });
    const stored = await store.get(who, run.id);
    assert.equal(stored?.checkpoint.results[0], null);
    assert.deepEqual(stored?.checkpoint.results[1]?.output, { "a\uFFFD": "x\uFFFD" });
  });
}
