/**
 * The flooding caller of ./flood_bench.ts: `deno run -A flood_client.ts URL
 * KEY CONCURRENCY BYTES` sends loop requests with a body of about BYTES (built
 * once) CONCURRENCY at a time until SIGTERM, then prints the count of each
 * status as one JSON line.
 */
const [url, key, concurrency, bytes] = Deno.args;
const body = new TextEncoder().encode(JSON.stringify({
  mode: "general",
  sessionId: "flood",
  messages: [{ role: "user", content: "hi" }],
  context: { blob: "x".repeat(Number(bytes)) },
}));
const counts: Record<string, number> = {};
let running = true;
Deno.addSignalListener("SIGTERM", () => (running = false));
await Promise.all(Array.from({ length: Number(concurrency) }, async () => {
  while (running) {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body,
      });
      await res.body?.cancel();
      counts[res.status] = (counts[res.status] ?? 0) + 1;
    } catch {
      counts.error = (counts.error ?? 0) + 1;
    }
  }
}));
console.log(JSON.stringify(counts));
Deno.exit(0);
