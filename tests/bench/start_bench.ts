/**
 * Start-up: milliseconds from spawning `functions/mcp-loop/index.ts` to its
 * first answer on each path, with an existing PGlite data folder (the way a
 * developer restarts it), and from spawning `mcp:stdio` to its first answer
 * to `initialize`. Each figure is the median of several cold starts.
 *
 * Beside them, in the same minutes, the floors those answers stand on: a bare
 * `Deno.serve`, the MCP SDK alone, and the database alone (PGlite opened in a
 * worker as the app opens it); and what first touching fresh memory costs the
 * machine right now, the figure that moves most from one hour to the next on
 * a shared VM.
 */
import {
  freePort,
  INITIALIZE,
  initializedDataDir,
  ROOT,
  spawnProcess,
} from "../support/process.ts";
import { BARE_ENDPOINT, functionCommand, SDK_ALONE, type ServerCommand } from "./load_harness.ts";

const RUNS = 5;

/** Spawns a server and times the first 2xx answer of `request` (polled every 5 ms). */
async function firstAnswer(
  command: ServerCommand,
  request: (base: string) => Request,
  { anyStatus = false } = {},
): Promise<number> {
  const port = freePort();
  const { args, env } = command(port);
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env,
    stdout: "null",
    stderr: "null",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  try {
    while (performance.now() - started < 30_000) {
      try {
        const res = await fetch(request(base), { signal: AbortSignal.timeout(5_000) });
        await res.body?.cancel();
        if (res.ok || anyStatus) return performance.now() - started;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error("no answer within 30 s");
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

const mcp = (base: string) =>
  new Request(`${base}/mcp-loop/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
const loop = (base: string) =>
  new Request(`${base}/mcp-loop`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      mode: "general",
      sessionId: `start-${crypto.randomUUID()}`,
      messages: [{ role: "user", content: "hello" }],
    }),
  });
const health = (base: string) => new Request(`${base}/mcp-loop/health`);

/** Spawns `mcp:stdio` and times its answer to `initialize`. */
async function stdioFirstAnswer(dataDir: string): Promise<number> {
  const started = performance.now();
  const server = spawnProcess(["run", "-A", `${ROOT}functions/mcp-stdio/main.ts`], {
    env: { MCP_LOOP_DATA_DIR: dataDir },
  });
  try {
    await server.send(INITIALIZE);
    await server.waitForLine((line) => JSON.parse(line).id === 0, 30_000);
    return performance.now() - started;
  } finally {
    await server.kill();
  }
}

/** Spawns a process that opens the database in a worker the way the app does, and times its first query. */
async function databaseAlone(dataDir: string): Promise<number> {
  const started = performance.now();
  const script = `
    const { PgliteWorkerSql } = await import("${ROOT}shared/adapters/pglite/pglite_worker_sql.ts");
    const sql = await PgliteWorkerSql.open({ dataDir: ${JSON.stringify(dataDir)} });
    await sql.query("select 1");
    console.log("ready");
    await sql.close();`;
  const child = spawnProcess(["eval", script]);
  try {
    await child.waitForLine((line) => line === "ready", 30_000);
    return performance.now() - started;
  } finally {
    await child.kill();
  }
}

/**
 * Milliseconds per MiB to first touch fresh memory (allocate and fill 32 MiB
 * buffers, all kept until the end so none reuses another's pages). On a VM
 * whose host backs guest memory lazily this varies severalfold by the hour,
 * and every start touches tens of MiB (PGlite's shared memory alone is 44 MB).
 */
function freshMemoryMsPerMiB(): number {
  const mib = 32;
  const kept: Uint8Array[] = [];
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const buffer = new Uint8Array(mib * 1024 * 1024);
    buffer.fill(1);
    samples.push((performance.now() - started) / mib);
    kept.push(buffer);
  }
  return median(samples);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Runs the start-up measurements and returns a markdown table. */
export async function startBenchmarks(): Promise<string> {
  const dataDir = await initializedDataDir();
  const rows: [string, () => Promise<number>][] = [
    ["floor: a bare Deno.serve, first answer", () => firstAnswer(BARE_ENDPOINT, mcp)],
    ["floor: the MCP SDK alone, first tools/list", () => firstAnswer(SDK_ALONE, mcp)],
    [
      "first MCP answer (tools/list)",
      () => firstAnswer(functionCommand({ MCP_LOOP_DATA_DIR: dataDir }), mcp),
    ],
    [
      "first health answer (503 starting, or 200)",
      () =>
        firstAnswer(functionCommand({ MCP_LOOP_DATA_DIR: dataDir }), health, { anyStatus: true }),
    ],
    ["floor: the database alone (PGlite in a worker), first query", () => databaseAlone(dataDir)],
    [
      "first loop answer (POST /mcp-loop, database opened)",
      () => firstAnswer(functionCommand({ MCP_LOOP_DATA_DIR: dataDir }), loop),
    ],
    ["mcp:stdio: first answer to initialize", () => stdioFirstAnswer(dataDir)],
  ];
  const lines = [
    `| after spawning the process (existing PGlite folder, median of ${RUNS}) | ms |`,
    "|---|---:|",
  ];
  for (const [name, measure] of rows) {
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) samples.push(await measure());
    lines.push(`| ${name} | ${Math.round(median(samples))} |`);
  }
  lines.push(
    `| this machine now: first touch of fresh memory, ms per MiB | ${
      freshMemoryMsPerMiB().toFixed(2)
    } |`,
  );
  return lines.join("\n");
}
