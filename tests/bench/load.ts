/**
 * `deno task bench:load`: load and soak. Starts the function on loopback with
 * PGlite on disk and the offline defaults, drives `POST /mcp-loop` (5,000
 * requests at 32 connections, spread over 200 sessions) and MCP `tools/call`
 * from separate processes, and prints a markdown table with throughput,
 * latency, errors and resident memory before and after. `--growing` measures
 * only the growing session: one connection, back-to-back turns in one new
 * session for 8 s, as a chat user's conversation grows; then the same in
 * process for 400 turns, by 100 turns: wall time, CPU time (less moved by
 * other work on the machine) and statements per request. `--growing
 * --database-url URL` measures the same on a Postgres with pgvector (the
 * migrations are applied to it first; give it an empty database).
 */
import process from "node:process";
import { PgliteWorkerSql } from "../../shared/adapters/pglite/pglite_worker_sql.ts";
import { PostgresSql } from "../../shared/adapters/postgres/postgres_sql.ts";
import { createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import type { Sql, SqlTx } from "../../shared/ports.ts";
import { applyMigrations } from "../../shared/store/migrations.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { MemoryRefinementStore } from "../fakes/memory_refinement_store.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { measure } from "./harness.ts";
import {
  autocannon,
  formatLoadTable,
  type LoadResult,
  MCP_HEADERS,
  rssMiB,
  startFunction,
  toolsCall,
} from "./load_harness.ts";

const LOADGEN = new URL("./loadgen.ts", import.meta.url).pathname;

async function loopLoad(
  base: string,
  { total, connections, sessions = 200, seconds, prefix = "load" }: {
    total: number;
    /** Session ids are `${prefix}-{s}`. */
    prefix?: string;
    connections: number;
    sessions?: number;
    seconds?: number;
  },
): Promise<LoadResult> {
  const template = JSON.stringify({
    mode: "general",
    sessionId: `${prefix}-{s}`,
    messages: [{
      role: "user",
      content: "Request {i}: please summarise what we said about topic {s} so far",
    }],
  });
  const options = {
    url: `${base}/mcp-loop`,
    total,
    seconds,
    connections,
    sessions,
    headers: { "content-type": "application/json" },
    template,
  };
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", LOADGEN, JSON.stringify(options)],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

/** The project's own code per loop request: the app in process, with in-memory stores. */
async function ownCode(): Promise<LoadResult> {
  const app = createApp(loadConfig({}), {
    store: new MemoryConversationStore(),
    refinementStore: new MemoryRefinementStore(),
    audit: { record: () => Promise.resolve(), flush: () => Promise.resolve() },
    logger: new RecordingLogger(),
  });
  const body = (i: number) =>
    JSON.stringify({
      mode: "general",
      sessionId: `own-${i % 200}`,
      messages: [{
        role: "user",
        content: `Request ${i}: please summarise what we said about topic ${i % 200} so far`,
      }],
    });
  const result = await measure("own code", async (i) => {
    const res = await app.fetch(
      new Request("http://localhost/mcp-loop", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: body(Math.abs(i)),
      }),
    );
    await res.arrayBuffer();
  }, { iterations: 3_000, warmup: 300 });
  return {
    requests: 3_000,
    perSecond: result.perSecond,
    p50Ms: round(result.medianMs),
    p99Ms: round(result.p99Ms),
    averageMs: result.meanMs,
    errors: 0,
    non2xx: 0,
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** One connection, back-to-back turns in one new session for 8 s: each turn's context grows. */
async function growingSession(base: string): Promise<LoadResult> {
  const prefix = `growing-${crypto.randomUUID()}`;
  return await loopLoad(base, { total: 0, connections: 1, sessions: 1, seconds: 8, prefix });
}

/**
 * One session growing by 400 turns in process (PGlite on disk in its worker, as the
 * server has it, or the Postgres at `databaseUrl`, after the same warm-up): per 100
 * turns, the median request, the process's CPU time per request and the statements
 * per request.
 */
async function growthByTurns(databaseUrl: string | undefined): Promise<string> {
  const dir = databaseUrl ? undefined : await Deno.makeTempDir({ prefix: "mcp-loop-growth-" });
  const db = dir
    ? await PgliteWorkerSql.open({ dataDir: dir })
    : new PostgresSql({ url: databaseUrl!, max: 1 });
  let statements = 0;
  const counted = (q: SqlTx): SqlTx => ({
    query: (text, params) => {
      statements++;
      return q.query(text, params);
    },
    exec: (script) => q.exec(script),
  });
  const sql: Sql = {
    ...counted(db),
    transaction: (fn) => db.transaction((tx) => fn(counted(tx))),
    close: () => db.close(),
  };
  try {
    await applyMigrations(db);
    const app = createApp(
      loadConfig({
        MCP_LOOP_LOG_LEVEL: "error",
        ...dir ? { MCP_LOOP_DATA_DIR: dir } : { DATABASE_URL: databaseUrl! },
      }),
      { sql },
    );
    const ask = async (sessionId: string, i: number) => {
      const start = performance.now();
      await app.run({
        mode: "general",
        sessionId,
        messages: [{
          role: "user",
          content: `Request ${i}: please summarise what we said about topic 0 so far`,
        }],
      });
      return performance.now() - start;
    };
    const run = crypto.randomUUID();
    const growing = `growing-${run}`;
    for (let i = 0; i < 300; i++) await ask(`warm-${run}-${i % 50}`, i);
    const lines = [
      "| turns | p50 | CPU per request | statements per request |",
      "|---|---:|---:|---:|",
    ];
    for (let from = 0; from < 400; from += 100) {
      const times: number[] = [];
      const cpu = process.cpuUsage();
      statements = 0;
      for (let i = from; i < from + 100; i++) times.push(await ask(growing, i));
      const used = process.cpuUsage(cpu);
      times.sort((a, b) => a - b);
      lines.push(
        `| ${from + 1}–${from + 100} | ${times[50].toFixed(1)} ms | ${
          ((used.user + used.system) / 1000 / 100).toFixed(1)
        } ms | ${(statements / 100).toFixed(1)} |`,
      );
    }
    await app.close();
    return lines.join("\n");
  } finally {
    await db.close();
    if (dir) await Deno.remove(dir, { recursive: true });
  }
}

if (Deno.args.includes("--growing")) {
  const urlAt = Deno.args.indexOf("--database-url");
  const databaseUrl = urlAt < 0 ? undefined : Deno.args[urlAt + 1];
  if (urlAt >= 0 && !databaseUrl?.startsWith("postgres")) {
    console.error("--database-url needs a Postgres URL (postgresql://user@host:port/database)");
    Deno.exit(2);
  }
  if (databaseUrl) {
    const db = new PostgresSql({ url: databaseUrl, max: 1 });
    await applyMigrations(db);
    await db.close();
  }
  const dataDir = await Deno.makeTempDir({ prefix: "mcp-loop-growing-" });
  const server = await startFunction(
    databaseUrl ? { DATABASE_URL: databaseUrl } : { MCP_LOOP_DATA_DIR: dataDir },
  );
  try {
    // Warm-up, in sessions of its own (a reused database keeps the earlier runs').
    const prefix = `warm-${crypto.randomUUID()}`;
    await loopLoad(server.base, { total: 300, connections: 1, sessions: 50, prefix });
    const rows = [
      {
        name: "POST /mcp-loop, one session growing for 8 s, 1 connection",
        result: await growingSession(server.base),
      },
      {
        name: "POST /mcp-loop in process, in-memory stores (project code only)",
        result: await ownCode(),
      },
    ];
    console.log(formatLoadTable(rows));
  } finally {
    await server.close();
    await Deno.remove(dataDir, { recursive: true });
  }
  console.log(
    `\nIn process, one session growing by 400 turns:\n\n${await growthByTurns(databaseUrl)}`,
  );
  Deno.exit(0);
}

const dataDir = await Deno.makeTempDir({ prefix: "mcp-loop-load-" });
const server = await startFunction({ MCP_LOOP_DATA_DIR: dataDir });
const rows: { name: string; result: LoadResult; note?: string }[] = [];
try {
  const mcpUrl = `${server.base}/mcp-loop/mcp`;
  const mcpCall = toolsCall("finalize_summary", {});
  // Warm-up: JIT, PGlite's caches, the first pages of every index.
  await loopLoad(server.base, { total: 1_000, connections: 32 });
  await autocannon(mcpUrl, {
    connections: 16,
    amount: 10_000,
    headers: MCP_HEADERS,
    body: mcpCall,
  });
  const before = await rssMiB(server.pid);

  const loop1 = await loopLoad(server.base, { total: 500, connections: 1 });
  rows.push({ name: "POST /mcp-loop, 1 connection", result: loop1 });
  rows.push({
    name: "POST /mcp-loop, one session growing for 8 s, 1 connection",
    result: await growingSession(server.base),
  });
  const loop32 = await loopLoad(server.base, { total: 5_000, connections: 32 });
  rows.push({ name: "POST /mcp-loop, 32 connections", result: loop32 });
  const afterLoop = await rssMiB(server.pid);
  const mcp = await autocannon(mcpUrl, {
    connections: 16,
    amount: 40_000,
    headers: MCP_HEADERS,
    body: mcpCall,
  });
  rows.push({ name: "MCP tools/call finalize_summary, 16 connections", result: mcp });
  const soak = await loopLoad(server.base, { total: 5_000, connections: 32 });
  rows.push({ name: "POST /mcp-loop again (soak), 32 connections", result: soak });
  const after = await rssMiB(server.pid);
  rows.push({
    name: "POST /mcp-loop in process, in-memory stores (project code only)",
    result: await ownCode(),
  });

  const growth = (after - before) / before * 100;
  console.log(formatLoadTable(rows));
  console.log(
    `\nRSS after warm-up ${before} MiB; after the loop run ${afterLoop} MiB; after all runs ${after} MiB (${
      growth >= 0 ? "+" : ""
    }${growth.toFixed(1)}%).`,
  );
  const errors = rows.reduce((n, r) => n + r.result.errors + r.result.non2xx, 0);
  console.log(`Errors: ${errors}.`);
} finally {
  await server.close();
  await Deno.remove(dataDir, { recursive: true });
}
