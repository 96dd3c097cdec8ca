/**
 * Load testing from outside the process: start the function (or a bare
 * endpoint) as its own process on loopback, drive it with autocannon (from
 * npm, run by Node in another process) and read its resident memory.
 */

import { serveOptionsEnv } from "../support/process.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const AUTOCANNON = "autocannon@8.0.0";

/**
 * The runtime flags `deno task start` gives the function (deno.json), so the
 * benches measure the process users run.
 */
export const START_FLAGS: string[] = (JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).tasks
  .start as string).split(/\s+/).filter((flag) =>
    flag.startsWith("--unstable") || flag.startsWith("--v8-flags")
  );

/** A server process under test. */
export interface ServerProcess {
  base: string;
  pid: number;
  close(): Promise<void>;
}

/** How to run a server process on a given port: `deno <args>` with `env` added. */
export type ServerCommand = (port: number) => { args: string[]; env?: Record<string, string> };

/** The function served as `deno task start` serves it, through `tests/support/serve_with_options.ts` (in-memory PGlite unless `env` says otherwise). */
export function functionCommand(env: Record<string, string> = {}): ServerCommand {
  return (port) => ({
    args: ["run", ...START_FLAGS, "-A", `${ROOT}tests/support/serve_with_options.ts`],
    env: {
      MCP_LOOP_DATA_DIR: "memory://",
      MCP_LOOP_LOG_LEVEL: "error",
      // The load comes from one caller: the per-caller limits would be what is measured.
      MCP_LOOP_CALLER_CONCURRENCY: "0",
      MCP_LOOP_CALLER_REQUESTS_PER_MINUTE: "0",
      ...serveOptionsEnv({ options: { http: { callerBytesPerMinute: 0 } } }),
      ...env,
      PORT: String(port),
    },
  });
}

/** A bare `Deno.serve` JSON endpoint: the floor any Deno handler can reach here. */
export const BARE_ENDPOINT: ServerCommand = (port) => ({
  args: [
    "eval",
    `Deno.serve({ hostname: "127.0.0.1", port: ${port}, onListen() {} }, async (req) => {
    if (req.method === "GET") return new Response("ok");
    const body = await req.json();
    return Response.json({ jsonrpc: "2.0", id: body.id, result: { content: [{ type: "text", text: "ok" }] } });
  });`,
  ],
});

/** The MCP SDK alone (./sdk_alone_server.ts): the ceiling for any server built on it. */
export const SDK_ALONE: ServerCommand = (port) => ({
  args: ["run", "--unstable-no-legacy-abort", "-A", `${ROOT}tests/bench/sdk_alone_server.ts`],
  env: { PORT: String(port) },
});

/** Starts the function with `env` on a free port and waits for its health check. */
export function startFunction(env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServer(functionCommand(env), "/mcp-loop/health");
}

/** Starts {@link BARE_ENDPOINT}. */
export function startBareEndpoint(): Promise<ServerProcess> {
  return startServer(BARE_ENDPOINT);
}

/** Starts {@link SDK_ALONE}. */
export function startSdkAlone(): Promise<ServerProcess> {
  return startServer(SDK_ALONE);
}

/** Spawns `deno <args>` for a free port and waits until `readyPath` answers 200. */
async function startServer(
  command: ServerCommand,
  readyPath = "",
): Promise<ServerProcess> {
  const port = freePort();
  const { args, env } = command(port);
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env,
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}${readyPath}`);
  return { base, pid: child.pid, close: () => stop(child) };
}

/** What autocannon measured. */
export interface LoadResult {
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  averageMs: number;
  errors: number;
  non2xx: number;
}

/** Runs autocannon against `url`: for `seconds`, or until `amount` requests. */
export async function autocannon(
  url: string,
  { connections, seconds, amount, method = "POST", headers = {}, body }: {
    connections: number;
    seconds?: number;
    amount?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<LoadResult> {
  const args = ["--yes", AUTOCANNON, "--json", "-c", String(connections), "-m", method];
  if (amount) args.push("-a", String(amount));
  else args.push("-d", String(seconds ?? 5));
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}=${value}`);
  if (body) args.push("-b", body);
  args.push(url);
  const output = await new Deno.Command("npx", { args, stdout: "piped", stderr: "null" }).output();
  const json = JSON.parse(new TextDecoder().decode(output.stdout));
  return {
    requests: json.requests.total,
    perSecond: json.requests.total / json.duration,
    p50Ms: json.latency.p50,
    p99Ms: json.latency.p99,
    averageMs: json.latency.average,
    errors: json.errors + json.timeouts,
    non2xx: json.non2xx,
  };
}

/** Resident memory of a process, in MiB (Linux). */
export async function rssMiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 102.4) / 10;
}

/** Headers of an MCP Streamable HTTP POST. */
export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** A `tools/call` JSON-RPC body. */
export function toolsCall(name: string, args: Record<string, unknown>): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
}

/** A markdown table of load results. */
export function formatLoadTable(
  rows: { name: string; result: LoadResult; note?: string }[],
): string {
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  return [
    "| scenario | requests | req/s | p50 | p99 | mean | errors | note |",
    "|---|---:|---:|---:|---:|---:|---:|---|",
    ...rows.map(({ name, result: r, note }) =>
      `| ${name} | ${fmt(r.requests)} | ${fmt(r.perSecond)} | ${r.p50Ms} ms | ${r.p99Ms} ms | ${
        r.averageMs.toFixed(2)
      } ms | ${r.errors + r.non2xx} | ${note ?? ""} |`
    ),
  ].join("\n");
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not become ready`);
}

async function stop(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch {
    // already gone
  }
  await child.status;
}
