/**
 * MCP `tools/call` over HTTP under load (autocannon, 16 connections and 1),
 * against the function on PGlite with the offline defaults, and the ratio to a
 * bare `Deno.serve` JSON endpoint measured in the same run.
 */
import {
  autocannon,
  formatLoadTable,
  type LoadResult,
  MCP_HEADERS,
  startBareEndpoint,
  startFunction,
  toolsCall,
} from "./load_harness.ts";

type Row = { name: string; result: LoadResult; note?: string };

const CHEAP_CALL = toolsCall("finalize_summary", {});

/** Runs the MCP load benchmark and returns its markdown table. */
export async function mcpLoadBenchmark({ seconds = 8 } = {}): Promise<string> {
  const bare = await startBareEndpoint();
  let floor: LoadResult;
  try {
    floor = await drive(bare.base, toolsCall("x", {}), { seconds, warmupSeconds: 2 });
  } finally {
    await bare.close();
  }
  const rows: Row[] = [{ name: "bare Deno.serve JSON endpoint, 16 connections", result: floor }];
  const ofBare = (name: string, result: LoadResult): Row => ({
    name,
    result,
    note: `${(result.perSecond / floor.perSecond * 100).toFixed(1)}% of bare`,
  });
  const server = await startFunction();
  try {
    const url = `${server.base}/mcp-loop/mcp`;
    for (const connections of [16, 1]) {
      const result = await drive(url, CHEAP_CALL, {
        connections,
        seconds,
        warmupSeconds: connections === 16 ? 3 : 0,
      });
      const plural = connections > 1 ? "s" : "";
      rows.push(ofBare(
        `tools/call finalize_summary (no database read), ${connections} connection${plural}`,
        result,
      ));
    }
    const created = await fetch(url, {
      method: "POST",
      headers: MCP_HEADERS,
      body: toolsCall("initialize_refinement_loop", { loop_type: "spec" }),
    });
    const id = (await created.json()).result.structuredContent.id;
    const status = toolsCall("get_loop_status", { loop_id: id });
    rows.push(ofBare(
      "tools/call get_loop_status (one PGlite read), 16 connections",
      await drive(url, status, { seconds, warmupSeconds: 2 }),
    ));
  } finally {
    await server.close();
  }
  // The cheap call again with the default log level: one JSON request line per call (to /dev/null).
  const logging = await startFunction({ MCP_LOOP_LOG_LEVEL: "info" });
  try {
    rows.push(ofBare(
      "tools/call finalize_summary, 16 connections, info-level request log lines",
      await drive(`${logging.base}/mcp-loop/mcp`, CHEAP_CALL, { seconds, warmupSeconds: 2 }),
    ));
  } finally {
    await logging.close();
  }
  return formatLoadTable(rows);
}

/** Warms up for `warmupSeconds` (when above 0), then measures for `seconds`. */
async function drive(
  url: string,
  body: string,
  { connections = 16, seconds, warmupSeconds }: {
    connections?: number;
    seconds: number;
    warmupSeconds: number;
  },
): Promise<LoadResult> {
  if (warmupSeconds > 0) {
    await autocannon(url, { connections, seconds: warmupSeconds, headers: MCP_HEADERS, body });
  }
  return await autocannon(url, { connections, seconds, headers: MCP_HEADERS, body });
}
