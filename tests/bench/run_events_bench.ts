/**
 * `deno task bench events`: the bytes one turn stores, in a session holding
 * five 30 KB messages — the run's events (`mcp_run_events`) and its row
 * (`mcp_runs`: request, base, checkpoint) for a short request, beside the
 * turn's own text (its request, its reply, its steps' inputs and outputs).
 * The events and the row's base name the recalled messages (the events
 * refer to the run's result); neither copies their text.
 */
import { createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import { sharedPglite } from "../support/pglite.ts";

/** The figures of one turn (bytes are of the stored JSON text). */
export async function runEventsBenchmark(): Promise<string> {
  const sql = await sharedPglite();
  const app = createApp(
    loadConfig({ MCP_LOOP_LOG_LEVEL: "error", MCP_LOOP_DATA_DIR: "memory://" }),
    { sql },
  );
  try {
    const sessionId = `bytes-${crypto.randomUUID()}`;
    const big = (i: number) =>
      `Message ${i}: ` + "the quick brown fox jumps over the lazy dog ".repeat(690);
    for (let i = 0; i < 5; i++) {
      await app.run({ mode: "general", sessionId, messages: [{ role: "user", content: big(i) }] });
    }
    const content = "What did the earlier messages say about the fox? Answer briefly.";
    const request = { mode: "general", sessionId, messages: [{ role: "user", content }] };
    const response = await app.run(request);
    const [row] = await sql.query<{ bytes: number; events: number }>(
      `select coalesce(sum(octet_length(data::text)), 0)::int as bytes, count(*)::int as events
       from public.mcp_run_events where run_id = $1`,
      [response.data.runId],
    );
    const [run] = await sql.query<{ base: number; checkpoint: number; request: number }>(
      `select coalesce(octet_length(base::text), 0)::int as base,
              octet_length(checkpoint::text)::int as checkpoint,
              octet_length(request::text)::int as request
       from public.mcp_runs where id = $1`,
      [response.data.runId],
    );
    const own = JSON.stringify({
      request: content,
      reply: response.data.summaryMessage ?? "",
      steps: response.data.intermediateResults.map((r) => [r.input, r.output, r.error ?? null]),
    }).length;
    return [
      "| request body | events | event bytes | run row (request, base, checkpoint) | the turn's own text | target (own text + 8 KiB) |",
      "|---:|---:|---:|---:|---:|---:|",
      `| ${
        JSON.stringify(request).length
      } B | ${row.events} | ${row.bytes} B | ${run.request} + ${run.base} + ${run.checkpoint} B | ${own} B | ${
        own + 8192
      } B |`,
    ].join("\n");
  } finally {
    await app.close();
  }
}
