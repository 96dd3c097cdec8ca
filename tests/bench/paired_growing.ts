/**
 * `deno task bench:paired DIR_A DIR_B [PAIRS]`: the growing session, paired.
 * Starts the function from each checkout (as `deno task start` runs it, PGlite
 * on disk), both alive at once, warms each with 300 requests over 50 sessions,
 * then one client alternates back-to-back requests between them (A then B, B
 * then A, …), each server growing its own session, and prints each one's
 * median, its median difference from the first one request by request, and the
 * same for the short sessions of the warm-up (their third to fifth turns).
 * On a machine whose speed changes by the minute, every pair sees the same
 * moments; the load bench's separate runs (`bench:load --growing`) do not.
 */
import { startFunction } from "./load_harness.ts";

const [first, second, pairsArg] = Deno.args;
if (!first || !second) {
  console.error(
    "usage: deno task bench:paired DIR_A DIR_B [PAIRS]  (two checkouts of this project)",
  );
  Deno.exit(2);
}
const PAIRS = Number(pairsArg ?? 300);

interface Side {
  root: string;
  base: string;
  close: () => Promise<void>;
  dir: string;
  growing: number[];
  short: number[];
}

async function start(root: string): Promise<Side> {
  const harness: { startFunction: typeof startFunction } = await import(
    new URL("tests/bench/load_harness.ts", `file://${root.replace(/\/?$/, "/")}`).href
  );
  const dir = await Deno.makeTempDir({ prefix: "mcp-loop-paired-" });
  const server = await harness.startFunction({ MCP_LOOP_DATA_DIR: dir });
  return { root, base: server.base, close: server.close, dir, growing: [], short: [] };
}

async function ask(side: Side, sessionId: string, i: number): Promise<number> {
  const body = JSON.stringify({
    mode: "general",
    sessionId,
    messages: [{
      role: "user",
      content: `Request ${i}: please summarise what we said about topic 0 so far`,
    }],
  });
  const started = performance.now();
  const res = await fetch(`${side.base}/mcp-loop`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${side.root}: HTTP ${res.status}`);
  return performance.now() - started;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const inTurn = (sides: Side[], i: number) => i % 2 === 0 ? sides : [...sides].reverse();

const sides = [await start(first), await start(second)];
try {
  for (let i = 0; i < 300; i++) {
    for (const side of inTurn(sides, i)) {
      const ms = await ask(side, `warm-${i % 50}`, i);
      if (i >= 100 && i < 250) side.short.push(ms);
    }
  }
  for (let i = 0; i < PAIRS; i++) {
    for (const side of inTurn(sides, i)) side.growing.push(await ask(side, "growing", i));
  }
  const row = (side: Side, what: "growing" | "short") => {
    const diff = side[what].map((ms, i) => ms - sides[0][what][i]);
    return `${median(side[what]).toFixed(2)} ms (${median(diff) >= 0 ? "+" : ""}${
      median(diff).toFixed(2)
    })`;
  };
  console.log(
    `| checkout | growing session, ${PAIRS} turns: p50 (paired difference) | short sessions |`,
  );
  console.log("|---|---:|---:|");
  for (const side of sides) {
    console.log(`| ${side.root} | ${row(side, "growing")} | ${row(side, "short")} |`);
  }
} finally {
  for (const side of sides) {
    await side.close();
    await Deno.remove(side.dir, { recursive: true });
  }
}
