/**
 * Start-up: milliseconds from spawning `functions/mcp-loop/index.ts` to its
 * first answer on each path, with an existing PGlite data folder (the way a
 * developer restarts it), and from spawning `mcp:stdio` to its first answer
 * to `initialize`. Each figure is the median of several cold starts.
 */
import {
  freePort,
  INITIALIZE,
  initializedDataDir,
  ROOT,
  spawnProcess,
} from "../support/process.ts";
import { START_FLAGS } from "./load_harness.ts";

const RUNS = 5;

/** Spawns the HTTP entry and times the first 2xx answer of `request` (polled every 5 ms). */
async function firstAnswer(
  dataDir: string,
  request: (base: string) => Request,
  { anyStatus = false } = {},
): Promise<number> {
  const port = freePort();
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...START_FLAGS, "-A", `${ROOT}functions/mcp-loop/index.ts`],
    cwd: ROOT,
    env: { MCP_LOOP_DATA_DIR: dataDir, MCP_LOOP_LOG_LEVEL: "error", PORT: String(port) },
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Runs the start-up measurements and returns a markdown table. */
export async function startBenchmarks(): Promise<string> {
  const dataDir = await initializedDataDir();
  const rows: [string, (dir: string) => Promise<number>][] = [
    ["first MCP answer (tools/list)", (dir) => firstAnswer(dir, mcp)],
    [
      "first health answer (503 starting, or 200)",
      (dir) => firstAnswer(dir, health, { anyStatus: true }),
    ],
    ["first loop answer (POST /mcp-loop, database opened)", (dir) => firstAnswer(dir, loop)],
    ["mcp:stdio: first answer to initialize", stdioFirstAnswer],
  ];
  const lines = [
    `| after spawning the process (existing PGlite folder, median of ${RUNS}) | ms |`,
    "|---|---:|",
  ];
  for (const [name, measure] of rows) {
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) samples.push(await measure(dataDir));
    lines.push(`| ${name} | ${Math.round(median(samples))} |`);
  }
  return lines.join("\n");
}
