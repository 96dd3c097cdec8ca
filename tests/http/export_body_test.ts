/**
 * The export's body (shared/http/export_body.ts): the same JSON document as
 * before, written part by part; the next page is read only when the client
 * wants more, and a store that fails part way stops the body short instead of
 * ending it as if it were whole.
 */
import assert from "node:assert/strict";
import { exportText, pulledBody } from "../../shared/http/export_body.ts";
import type { Caller } from "../../shared/ports.ts";
import type {
  CallerDataStore,
  ExportPage,
  ExportSection,
} from "../../shared/store/caller_data_port.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";

const CALLER: Caller = { userId: null, owner: "key:exporter" };
const HEAD = { owner: CALLER.owner, exportedAt: "2026-11-29T10:00:00Z", workingMemory: { a: 1 } };

/** A mock store: `rows` of each section, two a page; `failAt` makes that many-th page read fail. */
function pagedStore(rows: Partial<Record<ExportSection, unknown[]>>, failAt = Infinity) {
  const reads: string[] = [];
  const store: CallerDataStore = {
    deleteSession: () => Promise.reject(new Error("not in this test")),
    deleteEverything: () => Promise.reject(new Error("not in this test")),
    exportHead: () => Promise.resolve(HEAD),
    exportPage(_caller, section, { after }): Promise<ExportPage> {
      reads.push(`${section}:${after ?? ""}`);
      if (reads.length >= failAt) return Promise.reject(new Error("connection lost"));
      const start = after === undefined ? 0 : Number(after) + 1;
      const page = (rows[section] ?? []).slice(start, start + 2) as Record<string, unknown>[];
      return Promise.resolve({
        rows: page,
        ...(page.length ? { next: String(start + page.length - 1) } : {}),
      });
    },
  };
  return { store, reads };
}

const body = (store: CallerDataStore, logger = new RecordingLogger()) =>
  pulledBody(exportText({ store, caller: CALLER, head: HEAD }), { logger, requestId: "r" });

Deno.test("the export body is the same document as ever, whatever the pages", async () => {
  const messages = [1, 2, 3, 4, 5].map((n) => ({ id: `m${n}`, content: `message ${n}` }));
  const { store } = pagedStore({ messages, toolCalls: [{ tool: "t" }] });
  const document = JSON.parse(await new Response(body(store)).text());
  assert.deepEqual(document, {
    success: true,
    data: {
      ...HEAD,
      messages,
      sessionSummaries: [],
      loops: [],
      runs: [],
      toolCalls: [{ tool: "t" }],
    },
  });
});

Deno.test("the export reads a page only when the client has taken what came before", async () => {
  const messages = Array.from({ length: 10 }, (_, n) => ({ id: `m${n}` }));
  const { store, reads } = pagedStore({ messages });
  const reader = body(store).getReader();
  await reader.read(); // the head's fields
  await reader.read(); // the messages' opening bracket
  const page = await reader.read();
  assert.match(new TextDecoder().decode(page.value), /"m0".*"m1"/);
  // However long the client waits, the store has given its page and at most the next one.
  for (let turn = 0; turn < 50; turn++) await Promise.resolve();
  assert.ok(reads.length <= 2, reads.join(", "));
  await reader.cancel();
  assert.ok(reads.length <= 2, reads.join(", "));
});

Deno.test("a store failing part way stops the body short, and says so in the log", async () => {
  const messages = Array.from({ length: 10 }, (_, n) => ({ id: `m${n}` }));
  const { store } = pagedStore({ messages }, 3);
  const logger = new RecordingLogger();
  const reader = body(store, logger).getReader();
  const received: string[] = [];
  await assert.rejects(async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      received.push(new TextDecoder().decode(value));
    }
  }, /connection lost/);
  assert.throws(() => JSON.parse(received.join("")), SyntaxError);
  assert.ok(logger.entries.some((entry) => entry.message === "the export failed part way"));
});
