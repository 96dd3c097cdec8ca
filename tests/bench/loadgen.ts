/**
 * A small load generator, run as its own process by `load.ts`: sends `total`
 * requests (or as many as fit in `seconds`) with `connections` in flight, each body built from a template with
 * `{i}` (request number) and `{s}` (session number, `i % sessions`) filled in,
 * and prints the latencies' summary as JSON on stdout.
 *
 *   deno run -A tests/bench/loadgen.ts '<json options>'
 */

interface Options {
  url: string;
  total: number;
  /** When set, requests go on until this many seconds have passed (`total` is then ignored). */
  seconds?: number;
  connections: number;
  sessions: number;
  headers: Record<string, string>;
  template: string;
}

const options = JSON.parse(Deno.args[0]) as Options;
const latencies: number[] = [];
let next = 0;
let errors = 0;
let non2xx = 0;
const started = performance.now();
const more = options.seconds === undefined
  ? () => next < options.total
  : () => performance.now() - started < options.seconds! * 1000;
await Promise.all(Array.from({ length: options.connections }, async () => {
  while (more()) {
    const i = next++;
    const body = options.template.replaceAll("{i}", String(i)).replaceAll(
      "{s}",
      String(i % options.sessions),
    );
    const t0 = performance.now();
    try {
      const res = await fetch(options.url, { method: "POST", headers: options.headers, body });
      await res.arrayBuffer();
      if (res.status < 200 || res.status >= 300) non2xx++;
    } catch {
      errors++;
    }
    latencies[i] = performance.now() - t0;
  }
}));
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (q: number) =>
  Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 100) /
  100;
console.log(JSON.stringify({
  requests: latencies.length,
  perSecond: latencies.length / seconds,
  p50Ms: at(0.5),
  p99Ms: at(0.99),
  averageMs: latencies.reduce((a, b) => a + b, 0) / latencies.length,
  errors,
  non2xx,
}));
