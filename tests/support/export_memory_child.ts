/**
 * The process tests/http/export_memory_test.ts measures (run with
 * `--v8-flags=--expose-gc`): a history of more than 50 MB on an in-memory
 * PGlite, exported through the app's `GET /mcp-loop/data` and read by a client
 * that keeps nothing. While it reads, it collects garbage and samples the
 * memory the process holds; it prints one JSON line: the bytes exported, the
 * chunks they came in, and the growth of the live JS heap and of the resident
 * set over what they were before the request. Then it reads the export again,
 * whole, to check the document (after the measurement).
 */

import { createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import { openMigrated } from "./pglite.ts";

/** What makes the history: messages of 60,000 characters over 30 sessions, and a tool call each. */
const MESSAGES = 900;
const CHARS = 60_000;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");

const sql = await openMigrated();
await sql.query(
  `insert into public.chat_messages (session_id, owner, role, content)
   select 'session-' || (i % 30), 'anonymous', 'user', left(repeat(md5(i::text), $2::int / 32 + 1), $2::int)
   from generate_series(1, $1::int) i`,
  [MESSAGES, CHARS],
);
await sql.query(
  `insert into public.mcp_events (caller, source, session_id, tool, input, success, duration_ms)
   select 'anonymous', 'loop', 'session-' || (i % 30), 'remember',
          jsonb_build_object('text', repeat('y', 5000)), true, 1
   from generate_series(1, $1::int) i`,
  [MESSAGES],
);
const app = createApp(
  loadConfig({ MCP_LOOP_DATA_DIR: "memory://", MCP_LOOP_LOG_LEVEL: "silent" }),
  {
    sql,
  },
);
const request = () => new Request("http://localhost/mcp-loop/data");
// One export first, so what loads on first use (the stores, the handler) is not counted.
await (await app.fetch(request())).body?.cancel();

gc();
const before = Deno.memoryUsage();
const res = await app.fetch(request());
const reader = res.body!.getReader();
let bytes = 0;
let chunks = 0;
let heap = 0;
let rss = 0;
for (;;) {
  const { value, done } = await reader.read();
  if (done) break;
  bytes += value.length;
  chunks += 1;
  gc();
  const now = Deno.memoryUsage();
  heap = Math.max(heap, now.heapUsed - before.heapUsed);
  rss = Math.max(rss, now.rss - before.rss);
}
const document = await (await app.fetch(request())).json();
console.log(JSON.stringify({
  status: res.status,
  bytes,
  chunks,
  heapGrowth: heap,
  rssGrowth: rss,
  messages: document.data.messages.length,
  toolCalls: document.data.toolCalls.length,
  longest: Math.max(...document.data.messages.map((m: { content: string }) => m.content.length)),
}));
await app.close();
// The app leaves the database it was given open; an open one started from a dump holds the process.
await sql.close();
