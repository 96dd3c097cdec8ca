/**
 * MCP over HTTP under load (autocannon, 16 connections unless said) against
 * the function on PGlite with the offline defaults and the default info-level
 * request log line: `tools/call` and `tools/list` in both protocol eras, a
 * call that reads the database, one connection, and the first seconds after
 * start (before the JIT has warmed up) — each with its ratio to a bare
 * `Deno.serve` JSON endpoint measured in the same run — and the MCP SDK alone
 * serving one trivial tool (./sdk_alone_server.ts), the ceiling for any server
 * built on it. Each scenario is measured for 8 s after 15 s of its own
 * warm-up (the one-connection, database and first-seconds rows excepted).
 */
import {
  autocannon,
  formatLoadTable,
  type LoadResult,
  MCP_HEADERS,
  startBareEndpoint,
  startFunction,
  startSdkAlone,
  toolsCall,
} from "./load_harness.ts";

type Row = { name: string; result: LoadResult; note?: string };

/** A 2026-07-28 request: the `_meta` envelope and the standard headers. */
const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface Scenario {
  name: string;
  body: string;
  headers: Record<string, string>;
}

const rpc = (method: string, params?: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) });

const CALL: Scenario = {
  name: "tools/call finalize_summary (2025-11-25)",
  body: toolsCall("finalize_summary", {}),
  headers: MCP_HEADERS,
};
const LIST: Scenario = {
  name: "tools/list (2025-11-25)",
  body: rpc("tools/list"),
  headers: MCP_HEADERS,
};
const MODERN_HEADERS = { ...MCP_HEADERS, "mcp-protocol-version": "2026-07-28" };
const MODERN_CALL: Scenario = {
  name: "tools/call finalize_summary (2026-07-28)",
  body: rpc("tools/call", { name: "finalize_summary", arguments: {}, _meta: MODERN_META }),
  headers: { ...MODERN_HEADERS, "mcp-method": "tools/call", "mcp-name": "finalize_summary" },
};
const MODERN_LIST: Scenario = {
  name: "tools/list (2026-07-28)",
  body: rpc("tools/list", { _meta: MODERN_META }),
  headers: { ...MODERN_HEADERS, "mcp-method": "tools/list" },
};

/** Runs the MCP load benchmark and returns its markdown table. */
export async function mcpLoadBenchmark(
  { seconds = 8, warmupSeconds = 15 } = {},
): Promise<string> {
  const bare = await startBareEndpoint();
  let floor: LoadResult;
  try {
    floor = await drive(bare.base, { ...CALL, body: toolsCall("x", {}) }, {
      seconds,
      warmupSeconds: 2,
    });
  } finally {
    await bare.close();
  }
  const rows: Row[] = [{ name: "bare Deno.serve JSON endpoint", result: floor }];
  const ofBare = (name: string, result: LoadResult): Row => ({
    name,
    result,
    note: `${(result.perSecond / floor.perSecond * 100).toFixed(1)}% of bare`,
  });
  // The SDK with nothing of ours around it: how much of a request is the protocol itself.
  const sdk = await startSdkAlone();
  try {
    for (const scenario of [CALL, MODERN_CALL]) {
      rows.push(ofBare(
        `the SDK alone: ${scenario.name}`,
        await drive(sdk.base, scenario, { seconds, warmupSeconds }),
      ));
    }
  } finally {
    await sdk.close();
  }
  const server = await startFunction({ MCP_LOOP_LOG_LEVEL: "info" });
  try {
    const url = `${server.base}/mcp-loop/mcp`;
    // The first seconds after start, then each scenario's steady state after its own warm-up:
    // following the other era's traffic, the 2026-07-28 call took 10-20 s to reach its rate.
    const cold = await drive(url, CALL, { seconds: 5, warmupSeconds: 0 });
    for (const scenario of [CALL, LIST, MODERN_CALL, MODERN_LIST]) {
      rows.push(ofBare(scenario.name, await drive(url, scenario, { seconds, warmupSeconds })));
    }
    rows.push(ofBare(
      `${CALL.name}, 1 connection`,
      await drive(url, CALL, { connections: 1, seconds, warmupSeconds: 0 }),
    ));
    const created = await fetch(url, {
      method: "POST",
      headers: MCP_HEADERS,
      body: toolsCall("initialize_refinement_loop", { loop_type: "spec" }),
    });
    const id = (await created.json()).result.structuredContent.id;
    rows.push(ofBare(
      "tools/call get_loop_status (one PGlite read)",
      await drive(url, { ...CALL, body: toolsCall("get_loop_status", { loop_id: id }) }, {
        seconds,
        warmupSeconds: 2,
      }),
    ));
    rows.push(ofBare(`${CALL.name}, the first 5 s after start`, cold));
  } finally {
    await server.close();
  }
  return formatLoadTable(rows);
}

/** Warms up for `warmupSeconds` (when above 0), then measures for `seconds`. */
async function drive(
  url: string,
  { body, headers }: Scenario,
  { connections = 16, seconds, warmupSeconds }: {
    connections?: number;
    seconds: number;
    warmupSeconds: number;
  },
): Promise<LoadResult> {
  if (warmupSeconds > 0) {
    await autocannon(url, { connections, seconds: warmupSeconds, headers, body });
  }
  const result = await autocannon(url, { connections, seconds, headers, body });
  if (result.errors || result.non2xx) {
    throw new Error(`${result.errors} errors and ${result.non2xx} non-2xx answers from ${url}`);
  }
  return result;
}
