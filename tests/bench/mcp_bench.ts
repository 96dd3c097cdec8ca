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

/** Runs the MCP load benchmark and returns its markdown table. */
export async function mcpLoadBenchmark({ seconds = 8 } = {}): Promise<string> {
  const rows: { name: string; result: LoadResult; note?: string }[] = [];
  const bare = await startBareEndpoint();
  try {
    await autocannon(bare.base, {
      connections: 16,
      seconds: 2,
      headers: MCP_HEADERS,
      body: toolsCall("x", {}),
    });
    rows.push({
      name: "bare Deno.serve JSON endpoint, 16 connections",
      result: await autocannon(bare.base, {
        connections: 16,
        seconds,
        headers: MCP_HEADERS,
        body: toolsCall("x", {}),
      }),
    });
  } finally {
    await bare.close();
  }
  const floor = rows[0].result.perSecond;
  const server = await startFunction();
  try {
    const url = `${server.base}/mcp-loop/mcp`;
    const cheap = toolsCall("finalize_summary", {});
    await autocannon(url, { connections: 16, seconds: 3, headers: MCP_HEADERS, body: cheap }); // warm-up
    for (const connections of [16, 1]) {
      const result = await autocannon(url, {
        connections,
        seconds,
        headers: MCP_HEADERS,
        body: cheap,
      });
      rows.push({
        name: `tools/call finalize_summary (no database read), ${connections} connection${
          connections > 1 ? "s" : ""
        }`,
        result,
        note: `${(result.perSecond / floor * 100).toFixed(1)}% of bare`,
      });
    }
    const created = await fetch(url, {
      method: "POST",
      headers: MCP_HEADERS,
      body: toolsCall("initialize_refinement_loop", { loop_type: "spec" }),
    });
    const id = (await created.json()).result.structuredContent.id;
    const status = toolsCall("get_loop_status", { loop_id: id });
    await autocannon(url, { connections: 16, seconds: 2, headers: MCP_HEADERS, body: status });
    const result = await autocannon(url, {
      connections: 16,
      seconds,
      headers: MCP_HEADERS,
      body: status,
    });
    rows.push({
      name: "tools/call get_loop_status (one PGlite read), 16 connections",
      result,
      note: `${(result.perSecond / floor * 100).toFixed(1)}% of bare`,
    });
  } finally {
    await server.close();
  }
  rows.push(await withRequestLogging(floor, seconds));
  return formatLoadTable(rows);
}

/** The cheap call again with the default log level: one JSON request line per call (to /dev/null). */
async function withRequestLogging(floor: number, seconds: number) {
  const server = await startFunction({ MCP_LOOP_LOG_LEVEL: "info" });
  try {
    const url = `${server.base}/mcp-loop/mcp`;
    const cheap = toolsCall("finalize_summary", {});
    await autocannon(url, { connections: 16, seconds: 2, headers: MCP_HEADERS, body: cheap });
    const result = await autocannon(url, {
      connections: 16,
      seconds,
      headers: MCP_HEADERS,
      body: cheap,
    });
    return {
      name: "tools/call finalize_summary, 16 connections, info-level request log lines",
      result,
      note: `${(result.perSecond / floor * 100).toFixed(1)}% of bare`,
    };
  } finally {
    await server.close();
  }
}
