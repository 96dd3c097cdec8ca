/**
 * `deno task bench flood`: what one caller flooding the function does to
 * another. The function runs as `deno task start` runs it (in-memory PGlite,
 * two API keys); a separate process sends as Alice 16 loop requests at a time
 * with a 1 MB body each (./flood_client.ts, body built once), while Bob sends
 * small loop requests one after another. Bob's latency is measured with no
 * flood, with the flood under the default per-caller limits, and with the
 * flood and the limits off — the before.
 */
import { functionCommand } from "./load_harness.ts";
import { freePort, serveOptionsEnv, waitUntilOk } from "../support/process.ts";

const ALICE = "alice-flood-0123456789";
const BOB = "bob-flood-0123456789ab";
const FLOOD_CLIENT = new URL("./flood_client.ts", import.meta.url).pathname;

interface Phase {
  name: string;
  limits: "default" | "off";
  flood: boolean;
}

const PHASES: Phase[] = [
  { name: "no flood", limits: "default", flood: false },
  { name: "flood, default limits", limits: "default", flood: true },
  { name: "flood, limits off (before)", limits: "off", flood: true },
];

async function startServer(limits: Phase["limits"]) {
  const port = freePort();
  const { args, env } = functionCommand()(port);
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env: {
      ...env,
      // functionCommand turns the limits off for one-caller load; here they are the subject.
      ...(limits === "off" ? {} : {
        MCP_LOOP_CALLER_CONCURRENCY: "",
        MCP_LOOP_CALLER_REQUESTS_PER_MINUTE: "",
        ...serveOptionsEnv({}),
      }),
      MCP_LOOP_API_KEYS: `alice=${ALICE}, bob=${BOB}`,
      MCP_LOOP_MAX_BODY_BYTES: "2000000",
    },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const base = `http://127.0.0.1:${port}/mcp-loop`;
  await waitUntilOk(`${base}/health`, 30_000);
  return { base, child };
}

function bobRequest(base: string, i: number): Promise<Response> {
  return fetch(base, {
    method: "POST",
    headers: { authorization: `Bearer ${BOB}`, "content-type": "application/json" },
    body: JSON.stringify({
      mode: "general",
      sessionId: `bob-${i % 4}`,
      messages: [{ role: "user", content: `what time is it? (${i})` }],
    }),
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function runPhase(phase: Phase): Promise<string> {
  const { base, child } = await startServer(phase.limits);
  try {
    for (let i = 0; i < 10; i++) await (await bobRequest(base, i)).body?.cancel();
    const flood = phase.flood
      ? new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", FLOOD_CLIENT, base, ALICE, "16", "1000000"],
        stdout: "piped",
        stderr: "inherit",
      }).spawn()
      : undefined;
    if (flood) await new Promise((resolve) => setTimeout(resolve, 2_000));
    const latencies: number[] = [];
    let failed = 0;
    for (let i = 0; i < 60; i++) {
      const started = performance.now();
      const res = await bobRequest(base, i);
      await res.body?.cancel();
      latencies.push(performance.now() - started);
      if (res.status !== 200) failed++;
    }
    let floodNote = "—";
    if (flood) {
      flood.kill("SIGTERM");
      const out = new TextDecoder().decode((await flood.output()).stdout).trim();
      const counts = JSON.parse(out.split("\n").at(-1) ?? "{}") as Record<string, number>;
      floodNote = Object.entries(counts).map(([status, n]) => `${n} × ${status}`).join(", ");
    }
    latencies.sort((a, b) => a - b);
    const ms = (x: number) => x.toFixed(1);
    return `| ${phase.name} | ${ms(percentile(latencies, 0.5))} | ${
      ms(percentile(latencies, 0.9))
    } | ${failed} | ${floodNote} |`;
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

/** The three phases as a markdown table. */
export async function floodBenchmark(): Promise<string> {
  const rows = [
    "| phase | Bob's p50 ms | p90 ms | Bob refused | Alice's answers meanwhile |",
    "| ----- | -----------: | -----: | ----------: | -------------------------------- |",
  ];
  for (const phase of PHASES) rows.push(await runPhase(phase));
  return rows.join("\n");
}
