/**
 * A run's events as Server-Sent Events: first the stored ones after the
 * client's last (`Last-Event-ID`), then, while the run is running, each new
 * one — heard at once from this process's hub when the run executes here,
 * read from the store otherwise — until the run stops or pauses (its
 * `result` or `error` event), or is gone. A reconnecting client loses nothing.
 * A `Last-Event-ID` past the run's last event (another run's, or made up) gets
 * one `run` event with where the run stands, numbered with its last event, and
 * the end of the stream: nothing it could wait for would ever be numbered after it.
 */
import type { Caller } from "../ports.ts";
import type { RunEventHub } from "../runs/run_events.ts";
import type { RunEvent, RunStore } from "../runs/run_store.ts";
import { isStoredResult, responseOf, toRunView } from "../runs/run_view.ts";
import { sseEvent } from "./sse.ts";

/** Most events read from the store at once. */
const PAGE = 500;

/** The events response (see the module doc). */
export function followRunEvents(
  { store, hub, caller, runId, after, pollMs, requestId, signal, onEnd }: {
    store: RunStore;
    hub: RunEventHub;
    caller: Caller;
    runId: string;
    /** The last event the client has. */
    after: number;
    pollMs: number;
    requestId: string;
    signal: AbortSignal;
    onEnd: () => void;
  },
): Response {
  const encoder = new TextEncoder();
  let closed = false;
  let wake: (() => void) | undefined;
  const live: RunEvent[] = [];
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      // Listen first, so nothing emitted while the stored events are read is missed.
      const stop = hub.subscribe(runId, (event) => {
        live.push(event);
        wake?.();
      });
      const close = () => {
        closed = true;
        wake?.();
      };
      signal.addEventListener("abort", close, { once: true });
      let last = after;
      // Results already stored end an earlier stretch of the run, not the one being followed.
      let stored = Infinity;
      const write = (event: RunEvent) => {
        if (event.seq <= last || closed) return false;
        last = event.seq;
        controller.enqueue(encoder.encode(sseEvent(event.type, event.data, event.seq)));
        return (event.type === "result" || event.type === "error") && event.seq > stored;
      };
      try {
        const record = await store.get(caller, runId);
        stored = record?.eventSeq ?? 0;
        if (record && after > record.eventSeq) {
          const state = { type: "run", runId, state: toRunView(record) };
          controller.enqueue(encoder.encode(sseEvent("run", state, record.eventSeq)));
          return;
        }
        const following = record?.status === "running";
        let ended = false;
        for (const event of await storedAfter(store, caller, runId, last)) ended ||= write(event);
        while (following && !ended && !closed) {
          for (const event of live.splice(0)) ended ||= write(event);
          if (ended) break;
          for (const event of await storedAfter(store, caller, runId, last)) ended ||= write(event);
          if (ended) break;
          const current = await store.get(caller, runId);
          // Stopped with every event sent, or deleted (its session or caller erased).
          if (!current || (current.status !== "running" && current.eventSeq <= last)) break;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, pollMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
        }
      } catch {
        // The store failed mid-stream: end it; the client reconnects with its Last-Event-ID.
      } finally {
        stop();
        signal.removeEventListener("abort", close);
        if (!closed) controller.close();
        closed = true;
        onEnd();
      }
    },
    cancel() {
      closed = true;
      wake?.();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-request-id": requestId,
    },
  });
}

/**
 * Every stored event after `after`, page by page; a `result` event, which the
 * log keeps as a reference, with the response rebuilt from the run.
 */
async function storedAfter(
  store: RunStore,
  caller: Caller,
  runId: string,
  after: number,
): Promise<RunEvent[]> {
  const all: RunEvent[] = [];
  for (let from = after;;) {
    const page = await store.events(caller, runId, from, PAGE);
    all.push(...page);
    if (page.length < PAGE) break;
    from = page[page.length - 1].seq;
  }
  if (!all.some((event) => isStoredResult(event.data))) return all;
  const record = await store.get(caller, runId);
  return all.map((event) =>
    record && isStoredResult(event.data)
      ? { ...event, data: responseOf(record, event.data) }
      : event
  );
}
