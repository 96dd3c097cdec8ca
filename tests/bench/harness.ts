/**
 * A small benchmark harness: runs a function many times (after a warm-up),
 * optionally several at once, and reports median, p99, mean and throughput as
 * a markdown table row.
 */

/** One measured benchmark. */
export interface BenchResult {
  name: string;
  iterations: number;
  medianMs: number;
  p99Ms: number;
  meanMs: number;
  perSecond: number;
  note?: string;
}

/** Runs `fn` `iterations` times (with `concurrency` in flight) after `warmup` runs. */
export async function measure(
  name: string,
  fn: (i: number) => Promise<unknown> | unknown,
  { iterations = 1_000, warmup = 100, concurrency = 1, note }: {
    iterations?: number;
    warmup?: number;
    concurrency?: number;
    note?: string;
  } = {},
): Promise<BenchResult> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const samples = new Float64Array(iterations);
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < iterations) {
      const i = next++;
      const t0 = performance.now();
      await fn(i);
      samples[i] = performance.now() - t0;
    }
  }));
  const elapsed = performance.now() - started;
  samples.sort();
  const at = (q: number) => samples[Math.min(iterations - 1, Math.floor(q * iterations))];
  return {
    name,
    iterations,
    medianMs: at(0.5),
    p99Ms: at(0.99),
    meanMs: samples.reduce((a, b) => a + b, 0) / iterations,
    perSecond: iterations / (elapsed / 1000),
    note,
  };
}

/** The results as a markdown table. */
export function formatTable(results: readonly BenchResult[]): string {
  const ms = (v: number) =>
    !Number.isFinite(v) ? "—" : v < 0.1 ? `${(v * 1000).toFixed(1)} µs` : `${v.toFixed(2)} ms`;
  const lines = [
    "| benchmark | runs | median | p99 | mean | per second |",
    "|---|---:|---:|---:|---:|---:|",
    ...results.map((r) =>
      `| ${r.name}${r.note ? ` (${r.note})` : ""} | ${r.iterations} | ${ms(r.medianMs)} | ${
        ms(r.p99Ms)
      } | ${ms(r.meanMs)} | ${
        Number.isFinite(r.perSecond) ? Math.round(r.perSecond).toLocaleString("en-US") : "—"
      } |`
    ),
  ];
  return lines.join("\n");
}
