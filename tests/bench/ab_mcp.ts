/**
 * Two checkouts of this project, A and B, served in turn (A B, B A, A B …)
 * and driven with the same MCP load as `deno task bench mcp`: `tools/call`
 * and `tools/list` (2025-11-25) at 16 connections after 10 s of warm-up, and
 * `tools/call` on one connection. For before/after figures of one change on
 * this noisy machine, pair by pair:
 *
 *   git worktree add /tmp/before <commit>
 *   deno run -A tests/bench/ab_mcp.ts /tmp/before . [pairs]
 */
import { autocannon, functionCommand, MCP_HEADERS, toolsCall } from "./load_harness.ts";

const [dirA, dirB, pairsArg = "3"] = Deno.args;
if (!dirA || !dirB) {
  console.error("usage: deno run -A tests/bench/ab_mcp.ts DIR_A DIR_B [pairs]");
  Deno.exit(2);
}
const CALL = toolsCall("finalize_summary", { summary: "done" });
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
const root = (dir: string) => new URL(`${Deno.realPathSync(dir)}/`, "file://").pathname;

/** Serves `functions/mcp-loop/index.ts` of the checkout at `dir`, as `deno task start` does. */
async function start(dir: string, port: number): Promise<Deno.ChildProcess> {
  const { args, env } = functionCommand()(port);
  const entry = args.findIndex((arg) => arg.endsWith("functions/mcp-loop/index.ts"));
  args[entry] = `${root(dir)}functions/mcp-loop/index.ts`;
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env,
    cwd: root(dir),
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  for (let i = 0; i < 300; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/mcp-loop/health`)
      .then(async (res) => (await res.body?.cancel(), res.ok), () => false);
    if (ok) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${dir} did not start`);
}

let port = 18_600;
console.log(
  "| pair | checkout | tools/call /s | p99 ms | tools/list /s | p99 ms | 1 connection /s |",
);
console.log(
  "| ---: | -------- | ------------: | -----: | ------------: | -----: | --------------: |",
);
for (let pair = 1; pair <= Number(pairsArg); pair++) {
  for (const dir of pair % 2 ? [dirA, dirB] : [dirB, dirA]) {
    const child = await start(dir, ++port);
    const url = `http://127.0.0.1:${port}/mcp-loop/mcp`;
    const load = { connections: 16, headers: MCP_HEADERS };
    await autocannon(url, { ...load, seconds: 10, body: CALL });
    const call = await autocannon(url, { ...load, seconds: 8, body: CALL });
    const list = await autocannon(url, { ...load, seconds: 8, body: LIST });
    const one = await autocannon(url, {
      connections: 1,
      seconds: 5,
      headers: MCP_HEADERS,
      body: CALL,
    });
    child.kill("SIGTERM");
    await child.status;
    const failed = call.non2xx + list.non2xx + one.non2xx + call.errors + list.errors + one.errors;
    if (failed > 0) console.error(`${dir}: ${failed} requests failed`);
    const n = (x: number) => Math.round(x).toLocaleString("en");
    console.log(
      `| ${pair} | ${dir} | ${n(call.perSecond)} | ${call.p99Ms} | ${
        n(list.perSecond)
      } | ${list.p99Ms} | ${n(one.perSecond)} |`,
    );
  }
}
