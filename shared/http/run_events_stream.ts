/**
 * A run's events as Server-Sent Events: first the stored ones after the
 * client's last (`Last-Event-ID`), then, while the run is running, each new
 * one — heard at once from this process's hub when the run executes here,
 * read from the store otherwise — until the run stops or pauses (its
 * `result` or `error` event), or is gone. A reconnecting client loses nothing.
 * A `Last-Event-ID` past the last event of a run that is not running (another
 * run's id, or a made-up one) gets one `run` event with where the run stands,
 * numbered with its last event, and the end of the stream; a running run is
 * followed until it stops, whatever the id (its latest events may not be
 * stored yet), and the stream ends then.
 */
import type { MCPResponse } from "../contracts.ts";
import type { Caller, ConversationStore } from "../ports.ts";
import { withRecalledText } from "../runs/recalled_messages.ts";
import type { RunEventHub } from "../runs/run_events.ts";
import type { RunEvent, RunRecord, RunStore } from "../runs/run_store.ts";
import { isStoredResult, responseOf, toRunView } from "../runs/run_view.ts";
import { sseEvent } from "./sse.ts";

/** Most events read from the store at once. */
const PAGE = 500;

/** What a client following a run's events asks for, and where the events come from. */
type FollowOptions = {
  store: RunStore;
  /** Where a rebuilt `result` reads the text of the messages the run recalled. */
  messages: Pick<ConversationStore, "messagesByIds">;
  hub: RunEventHub;
  caller: Caller;
  runId: string;
  /** The last event the client has. */
  after: number;
  pollMs: number;
  requestId: string;
  signal: AbortSignal;
  onEnd: () => void;
  /** How a `result` event's response is shown (its raw embedding left out: answer_run.ts). */
  present?: (response: MCPResponse) => MCPResponse;
};

/** The events response (see the module doc). */
export function followRunEvents(options: FollowOptions): Response {
  const { hub, runId, signal, onEnd } = options;
  const listener = new Listener();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      // Listen first, so nothing emitted while the stored events are read is missed.
      const stop = hub.subscribe(runId, listener.hear);
      signal.addEventListener("abort", listener.close, { once: true });
      try {
        await sendEvents(controller, listener, options);
      } catch {
        // The store failed mid-stream: end it; the client reconnects with its Last-Event-ID.
      } finally {
        stop();
        signal.removeEventListener("abort", listener.close);
        if (!listener.closed) controller.close();
        listener.closed = true;
        onEnd();
      }
    },
    cancel: listener.close,
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-request-id": options.requestId,
    },
  });
}

/**
 * The stream's ear: the events the hub told it of, whether the client left,
 * and a wait between polls that either cuts short.
 */
class Listener {
  closed = false;
  readonly live: RunEvent[] = [];
  #wake: (() => void) | undefined;

  readonly hear = (event: RunEvent): void => {
    this.live.push(event);
    this.#wake?.();
  };

  readonly close = (): void => {
    this.closed = true;
    this.#wake?.();
  };

  /** Waits `ms`, or less when an event is heard or the client leaves. */
  async wait(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = undefined;
  }
}

/**
 * Writes the stored events after the client's last, then, while the run is
 * running, each new one, until the run stops or pauses, is gone, or the client leaves.
 */
async function sendEvents(
  controller: ReadableStreamDefaultController<Uint8Array>,
  listener: Listener,
  { store, messages, caller, runId, after, pollMs, present = (r) => r }: FollowOptions,
): Promise<void> {
  const encoder = new TextEncoder();
  const writeState = (record: RunRecord) => {
    const state = { type: "run", runId, state: toRunView(record) };
    controller.enqueue(encoder.encode(sseEvent("run", state, record.eventSeq)));
  };
  const record = await store.get(caller, runId);
  // A running run's latest events may not be stored yet (a run saves them in batches):
  // it is followed until it stops, whatever the id; a stopped one has nothing to wait for.
  if (record && record.status !== "running" && after > record.eventSeq) {
    writeState(record);
    return;
  }
  // Results already stored end an earlier stretch of the run, not the one being followed.
  const stored = record?.eventSeq ?? 0;
  let last = after;
  const write = (event: RunEvent) => {
    if (event.seq <= last || listener.closed) return false;
    last = event.seq;
    const data = event.type === "result" ? present(event.data as MCPResponse) : event.data;
    controller.enqueue(encoder.encode(sseEvent(event.type, data, event.seq)));
    return (event.type === "result" || event.type === "error") && event.seq > stored;
  };
  const following = record?.status === "running";
  let ended = false;
  const readStored = () => storedAfter({ store, messages, caller, runId }, last);
  for (const event of await readStored()) ended ||= write(event);
  while (following && !ended && !listener.closed) {
    for (const event of listener.live.splice(0)) ended ||= write(event);
    if (ended) break;
    for (const event of await readStored()) ended ||= write(event);
    if (ended) break;
    const current = await store.get(caller, runId);
    // Stopped with every event sent, or deleted (its session or caller erased).
    if (!current || (current.status !== "running" && current.eventSeq <= last)) {
      // A client whose id was past the end learns where the run stands.
      if (current && after > current.eventSeq) writeState(current);
      break;
    }
    await listener.wait(pollMs);
  }
}

/**
 * Every stored event after `after`, page by page; a `result` event, which the
 * log keeps as a reference, with the response rebuilt from the run (the
 * recalled messages' text read again, as a run that goes on reads it).
 */
async function storedAfter(
  { store, messages, caller, runId }: Pick<
    FollowOptions,
    "store" | "messages" | "caller" | "runId"
  >,
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
  const found = await store.get(caller, runId);
  const record = found?.base
    ? { ...found, base: await withRecalledText(found.base, { store: messages, caller }) }
    : found;
  return all.map((event) =>
    record && isStoredResult(event.data)
      ? { ...event, data: responseOf(record, event.data) }
      : event
  );
}
