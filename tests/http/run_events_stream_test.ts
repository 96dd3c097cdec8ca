/**
 * `GET …/runs/{runId}/events` ends: when its run stops, when its run is gone,
 * and at once for a `Last-Event-ID` past the run's last event, which gets where
 * the run stands. A stream that stays open is detected by counting the store's
 * reads (each poll reads the run), never by waiting on a clock: past a bound the
 * test gives up on the stream and fails.
 */
import assert from "node:assert/strict";
import { createParser } from "eventsource-parser";
import { followRunEvents } from "../../shared/http/run_events_stream.ts";
import type { Caller } from "../../shared/ports.ts";
import { RunEventHub } from "../../shared/runs/run_events.ts";
import type { RunStore } from "../../shared/runs/run_store.ts";
import { initialCheckpoint } from "../../shared/runs/checkpoint.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { MemoryRunStore } from "../fakes/memory_run_store.ts";

const CALLER: Caller = { userId: null, owner: "key:follower" };
const REQUEST = {
  mode: "general" as const,
  sessionId: "s",
  messages: [{ role: "user" as const, content: "hi" }],
};
/** Reads of the run a stream may make before the test calls it stuck. */
const MAX_READS = 40;

interface Sse {
  id?: string;
  event?: string;
  data: Record<string, unknown>;
}

/** A running run with three events. */
async function runningRun(store: MemoryRunStore) {
  return await store.create(CALLER, {
    sessionId: "s",
    request: REQUEST,
    checkpoint: initialCheckpoint({ maxRounds: 3, budgetMs: 10_000 }),
    leaseMs: 60_000,
    events: [
      { type: "run", data: { type: "run", runId: "r" } },
      { type: "round_start", data: { type: "round_start", round: 1, maxRounds: 3 } },
      { type: "plan", data: { type: "plan", round: 1, plan: [], repaired: false } },
    ],
  });
}

/**
 * Follows the run; `onRead(n)` runs at the stream's n-th read of the run. The
 * stream is cancelled when it reads the run more than {@link MAX_READS} times.
 */
async function follow(
  store: MemoryRunStore,
  runId: string,
  after: number,
  onRead: (reads: number) => Promise<void> | void = () => {},
): Promise<{ events: Sse[]; stuck: boolean }> {
  const stop = new AbortController();
  let reads = 0;
  const counted: RunStore = {
    create: (caller, run) => store.create(caller, run),
    get: async (caller, id) => {
      reads += 1;
      if (reads > MAX_READS) stop.abort();
      await onRead(reads);
      return await store.get(caller, id);
    },
    save: (caller, id, change) => store.save(caller, id, change),
    events: (caller, id, afterSeq, limit) => store.events(caller, id, afterSeq, limit),
    requestCancel: (caller, id) => store.requestCancel(caller, id),
    sweep: (before, limit) => store.sweep(before, limit),
  };
  let ended = false;
  const response = followRunEvents({
    store: counted,
    messages: new MemoryConversationStore(),
    hub: new RunEventHub(),
    caller: CALLER,
    runId,
    after,
    pollMs: 1,
    requestId: "test",
    signal: stop.signal,
    onEnd: () => ended = true,
  });
  const events: Sse[] = [];
  const parser = createParser({
    onEvent: (e) => events.push({ id: e.id, event: e.event, data: JSON.parse(e.data) }),
  });
  parser.feed(await response.text());
  assert.ok(ended, "the stream reported its end");
  return { events, stuck: stop.signal.aborted };
}

Deno.test("events: a Last-Event-ID past the end of a running run is followed until the run ends, then gets where it stands", async () => {
  const store = new MemoryRunStore();
  const run = await runningRun(store);
  // A running run may not have stored its latest events yet: the stream waits for its end.
  const { events, stuck } = await follow(store, run.id, 1_000, async (reads) => {
    if (reads !== 3) return;
    await store.save(CALLER, run.id, {
      from: ["running"],
      version: run.version,
      status: "completed",
      checkpoint: run.checkpoint,
      stopReason: "finalized",
      events: [{ type: "result", data: { success: true, data: {} } }],
    });
  });
  assert.equal(stuck, false, "the stream stayed open after the run ended");
  assert.equal(events.length, 1);
  const [state] = events;
  assert.equal(state.event, "run");
  assert.equal(state.id, "4", "numbered with the run's last event, for the next Last-Event-ID");
  assert.equal(state.data.runId, run.id);
  const view = state.data.state as { status: string; lastEventId: number };
  assert.deepEqual([view.status, view.lastEventId], ["completed", 4]);
});

Deno.test("events: a Last-Event-ID past the end of a finished run gets its state too", async () => {
  const store = new MemoryRunStore();
  const run = await runningRun(store);
  await store.save(CALLER, run.id, {
    from: ["running"],
    version: run.version,
    status: "completed",
    checkpoint: run.checkpoint,
    stopReason: "finalized",
    events: [{ type: "result", data: { success: true, data: {} } }],
  });
  const { events, stuck } = await follow(store, run.id, 99);
  assert.equal(stuck, false);
  assert.deepEqual(events.map((e) => [e.event, e.id]), [["run", "4"]]);
  const view = events[0].data.state as { status: string; stopReason: string };
  assert.deepEqual([view.status, view.stopReason], ["completed", "finalized"]);
});

Deno.test("events: a followed run that ends closes the stream after its last event", async () => {
  const store = new MemoryRunStore();
  const run = await runningRun(store);
  // The run finishes (in another process: nothing on this hub) once the stream polls.
  const { events, stuck } = await follow(store, run.id, 3, async (reads) => {
    if (reads !== 3) return;
    await store.save(CALLER, run.id, {
      from: ["running"],
      version: run.version,
      status: "completed",
      checkpoint: run.checkpoint,
      events: [{ type: "result", data: { success: true, data: {} } }],
    });
  });
  assert.equal(stuck, false, "the stream stayed open");
  assert.deepEqual(events.map((e) => [e.event, e.id]), [["result", "4"]]);
});

Deno.test("events: a followed run that is deleted (its session erased) closes the stream", async () => {
  const store = new MemoryRunStore();
  const run = await runningRun(store);
  const { events, stuck } = await follow(store, run.id, 0, (reads) => {
    if (reads === 3) store.runs.delete(run.id);
  });
  assert.equal(stuck, false, "the stream stayed open");
  assert.deepEqual(events.map((e) => e.id), ["1", "2", "3"]);
});
