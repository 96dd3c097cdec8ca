/**
 * `deno task bench edge`: what a request costs where the function is deployed —
 * the deployed entry under the edge runtime harness (its Deno 2.1.4,
 * `EdgeRuntime`, no disk), a Supabase-shaped Postgres (PGlite over the wire
 * protocol) and a signed-in user — on a mix of requests a deployed function
 * serves: MCP `tools/call` and `tools/list`, and loop turns. Each run starts a
 * fresh function process. Reported: the function process's CPU time per
 * request (from /proc) and the latencies.
 */
import { es256Key, es256Token, USER_A, userClaims } from "../auth/test_tokens.ts";
import { edgeDeno, type EdgeFunction, startEdgeFunction } from "../support/edge_runtime.ts";
import { serveFakeSupabase } from "../support/fake_supabase.ts";
import { servePglite } from "../support/pglite_socket.ts";
import { migratedSupabasePglite } from "../support/supabase_shape.ts";

const REQUESTS = 400;
const RUNS = 3;

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 Hz)
}

/** One request of the mix (3 of 5 tools/call, 1 tools/list, 1 loop turn). */
function request(
  fn: EdgeFunction,
  authorization: string,
  i: number,
  loopId: string,
): Promise<Response> {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization,
  };
  const mcp = (body: unknown) =>
    fetch(`${fn.url}/mcp-loop/mcp`, { method: "POST", headers, body: JSON.stringify(body) });
  switch (i % 5) {
    case 3:
      return mcp({ jsonrpc: "2.0", id: i, method: "tools/list" });
    case 4:
      return fetch(`${fn.url}/mcp-loop`, {
        method: "POST",
        headers: { ...headers, accept: "application/json" },
        body: JSON.stringify({
          mode: "general",
          sessionId: `edge-bench-${i % 20}`,
          messages: [{ role: "user", content: `What time is it in Tokyo? (${i})` }],
        }),
      });
    default:
      return mcp({
        jsonrpc: "2.0",
        id: i,
        method: "tools/call",
        params: { name: "get_loop_status", arguments: { loop_id: loopId } },
      });
  }
}

/** Runs the mix against one started function: CPU ms per request, median and p99 latency. */
async function runMix(fn: EdgeFunction, authorization: string, loopId: string, pid: number) {
  for (let i = 0; i < 50; i++) await (await request(fn, authorization, i, loopId)).arrayBuffer();
  await fn.settle();
  const cpu0 = cpuSeconds(pid);
  const latencies: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const res = await request(fn, authorization, i, loopId);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`request ${i} answered ${res.status}`);
    latencies.push(performance.now() - started);
  }
  await fn.settle();
  const cpuMs = (cpuSeconds(pid) - cpu0) * 1000 / REQUESTS;
  latencies.sort((a, b) => a - b);
  return { cpuMs, p50: latencies[REQUESTS / 2], p99: latencies[Math.floor(REQUESTS * 0.99)] };
}

/** The bench's markdown table. */
export async function edgeBenchmarks(): Promise<string> {
  const edge = await edgeDeno();
  if (!edge.path) return `skipped: ${edge.reason}`;
  const { db } = await migratedSupabasePglite();
  const database = await servePglite(db);
  const key = await es256Key("edge-bench-key");
  const supabase = serveFakeSupabase({ keys: [key] });
  const authorization = `Bearer ${await es256Token(
    key,
    userClaims(USER_A, { iss: `${supabase.url}/auth/v1` }),
  )}`;
  const env = {
    SUPABASE_URL: supabase.url,
    SUPABASE_DB_URL: database.url,
    SUPABASE_SECRET_KEYS: '{"default":"sb_secret_edge_bench_default_0123456789"}',
    MCP_LOOP_LOG_LEVEL: "warn",
    MCP_LOOP_CALLER_CONCURRENCY: "0",
    MCP_LOOP_CALLER_REQUESTS_PER_MINUTE: "0",
  };
  const rows: string[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      const fn = await startEdgeFunction(edge.path, { env });
      try {
        const init = await fetch(`${fn.url}/mcp-loop/mcp`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization,
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 0,
            method: "tools/call",
            params: { name: "initialize_refinement_loop", arguments: { loop_type: "spec" } },
          }),
        });
        const initBody = await init.json();
        const loopId = initBody.result?.structuredContent?.id;
        if (!loopId) throw new Error(`could not start a loop: ${JSON.stringify(initBody)}`);
        const { cpuMs, p50, p99 } = await runMix(fn, authorization, loopId, fn.process.child.pid);
        rows.push(
          `| ${run + 1} | ${cpuMs.toFixed(2)} | ${p50.toFixed(1)} | ${p99.toFixed(1)} |`,
        );
      } finally {
        await fn.stop();
      }
    }
  } finally {
    await database.close();
    await supabase.close();
    await db.close();
  }
  return [
    `${REQUESTS} requests each (3 of 5 MCP tools/call, 1 tools/list, 1 loop turn), one at a time, after 50 of warm-up`,
    "",
    "| run | CPU ms / request | p50 ms | p99 ms |",
    "| ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n");
}
