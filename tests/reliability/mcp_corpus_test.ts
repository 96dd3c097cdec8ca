/**
 * A corpus of malformed requests to `/mcp-loop/mcp`, hand-picked and
 * generated: each gets a 4xx with a JSON-RPC error, or (for a well-formed
 * request with bad params or an unknown method) the right JSON-RPC error code —
 * never a 5xx and never -32603 — and a normal request works right after.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { mcpApp } from "../support/mcp_fixture.ts";

const URL_ = "http://localhost/mcp-loop/mcp";
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

type Case = { name: string; request: () => Request; expect?: number };

const raw = (name: string, body: BodyInit, headers: Record<string, string> = HEADERS): Case => ({
  name,
  request: () => new Request(URL_, { method: "POST", headers, body }),
});
const json = (name: string, body: unknown, expect?: number): Case => ({
  ...raw(name, JSON.stringify(body)),
  expect,
});
const call = (name: string, method: string, params: unknown, expect: number): Case =>
  json(
    name,
    { jsonrpc: "2.0", id: 1, method, ...(params === undefined ? {} : { params }) },
    expect,
  );
const toolCall = (name: string, params: unknown) => call(name, "tools/call", params, -32602);

const handPicked: Case[] = [
  // Broken JSON: -32700.
  ...[
    "{",
    '{"jsonrpc":"2.0",',
    "{'jsonrpc':'2.0'}",
    "[{]",
    '{"a":NaN}',
    "nul",
    "\u0000",
    "",
    " ",
    '{"id":1}x',
  ]
    .map((body, i) => ({ ...raw(`broken JSON ${i}`, body), expect: -32700 })),
  // Not JSON-RPC messages: -32600.
  ...[
    {},
    [],
    1,
    "x",
    null,
    true,
    [1, 2],
    [{}],
    ["tools/list"],
    { jsonrpc: "1.0", id: 1, method: "tools/list" },
    { id: 1, method: "tools/list" },
    { jsonrpc: "2.0", id: 1 },
    { jsonrpc: "2.0", id: 1, method: 5 },
    { jsonrpc: 2, id: 1, method: "tools/list" },
    [{ jsonrpc: "2.0", id: 1, method: "ping" }, {}],
  ]
    .map((body, i) => json(`not JSON-RPC ${i}`, body, -32600)),
  // Unknown methods: -32601.
  ...[
    "tools/explode",
    "",
    "resources/list",
    "prompts/get",
    "completion/complete",
    "sampling/createMessage",
    "rpc.discover",
    "TOOLS/LIST",
    "tools/list/extra",
    "__proto__",
    "elicitation/create",
    "roots/list",
  ]
    .map((method) => call(`unknown method "${method}"`, method, {}, -32601)),
  // Wrong params for tools/call: -32602.
  ...[null, [], "x", 5].map((params) =>
    call(`tools/call params ${JSON.stringify(params)}`, "tools/call", params, -32600)
  ),
  ...[
    {},
    { name: 1 },
    { name: null },
    { name: ["get_loop_status"] },
    { name: "nope" },
    { name: "" },
    { name: "get_loop_status" },
    { name: "get_loop_status", arguments: [] },
    { name: "get_loop_status", arguments: "x" },
    { name: "get_loop_status", arguments: { loop_id: 5 } },
    { name: "get_loop_status", arguments: { loop_id: "ZZZZZZZZ" } },
  ]
    .map((params, i) =>
      toolCall(`tools/call params ${i}: ${JSON.stringify(params)}`.slice(0, 80), params)
    ),
  ...[-1, 101, 1.5, "50", null, true, [], 1e9].map((score) =>
    toolCall(`decide with score ${JSON.stringify(score)}`, {
      name: "decide_loop_next_action",
      arguments: { loop_id: "a1b2c3d4", current_score: score },
    })
  ),
  ...["design", "", 5, null, "PLAN", ["plan"]].map((loopType) =>
    toolCall(`initialize with loop_type ${JSON.stringify(loopType)}`, {
      name: "initialize_refinement_loop",
      arguments: { loop_type: loopType },
    })
  ),
  // Wrong params for other methods: -32602.
  call("tools/list with a numeric cursor", "tools/list", { cursor: 5 }, -32602),
  call("tools/list with array params", "tools/list", [], -32600),
  call("initialize without params", "initialize", undefined, -32602),
  call("initialize with a numeric protocol version", "initialize", {
    protocolVersion: 2025,
    capabilities: {},
    clientInfo: { name: "x", version: "1" },
  }, -32602),
  call("initialize without clientInfo", "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
  }, -32602),
  call("ping with string params", "ping", "x", -32600),
  // Batch abuse.
  json("an empty batch", [], -32600),
  json(
    "a batch of 101",
    Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })),
    -32600,
  ),
  json("a batch with one invalid message", [{ jsonrpc: "2.0", id: 1, method: "ping" }, 7], -32600),
  json("a batch nested 100 deep", JSON.parse("[".repeat(100) + "]".repeat(100)), -32600),
  // Headers, size and method.
  {
    ...raw("text/plain body", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
      ...HEADERS,
      "content-type": "text/plain",
    }),
  },
  {
    ...raw("no Accept header", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
      "content-type": "application/json",
    }),
  },
  {
    ...raw(
      "Accept without event-stream",
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      { ...HEADERS, accept: "application/json" },
    ),
  },
  json("a body over 1 MiB", {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "get_loop_status", arguments: { loop_id: "x".repeat(1_100_000) } },
  }),
  ...["GET", "DELETE", "PUT", "PATCH"].map((method): Case => ({
    name: `method ${method}`,
    request: () => new Request(URL_, { method, headers: HEADERS }),
  })),
];

/** Generated: random arguments for each tool and random JSON-RPC-shaped objects. */
function generated(): Case[] {
  const tools = [
    "initialize_refinement_loop",
    "decide_loop_next_action",
    "get_loop_status",
    "list_active_loops",
    "finalize_summary",
  ];
  const args = fc.sample(
    fc.record({
      name: fc.constantFrom(...tools),
      arguments: fc.dictionary(
        fc.constantFrom("loop_id", "loop_type", "current_score", "instructions", "x"),
        fc.jsonValue(),
      ),
    }),
    { numRuns: 60, seed: 11 },
  );
  const messages = fc.sample(
    fc.record({
      jsonrpc: fc.oneof(fc.constant("2.0"), fc.jsonValue()),
      id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
      method: fc.oneof(
        fc.constantFrom("tools/list", "tools/call", "ping", "initialize"),
        fc.string(),
      ),
      params: fc.jsonValue(),
    }),
    { numRuns: 60, seed: 12 },
  );
  return [
    ...args.map((params, i) =>
      json(`generated tools/call ${i}`, { jsonrpc: "2.0", id: i, method: "tools/call", params })
    ),
    ...messages.map((message, i) => json(`generated message ${i}`, message)),
  ];
}

const corpus = [...handPicked, ...generated()];

type Rpc = { error?: { code: number; message: string }; result?: unknown };

Deno.test(`/mcp-loop/mcp: ${corpus.length} malformed requests get 4xx or the right JSON-RPC error, never a 5xx or -32603`, async () => {
  assert.ok(corpus.length >= 100, `only ${corpus.length} cases`);
  const app = await mcpApp();
  const failures: string[] = [];
  for (const { name, request, expect } of corpus) {
    const res = await app.fetch(request());
    const text = await res.text();
    let body: Rpc | Rpc[] | undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const errors = (Array.isArray(body) ? body : body ? [body] : []).map((m) => m.error?.code)
      .filter((c) => c !== undefined);
    const problems = [
      res.status >= 500 && `status ${res.status}`,
      errors.includes(-32603) && "internal error -32603",
      expect !== undefined && !errors.includes(expect) &&
      `expected ${expect}, got ${JSON.stringify(errors)}`,
      res.status >= 400 &&
      !(body && !Array.isArray(body) && typeof body.error?.message === "string") &&
      "a 4xx without a JSON-RPC error message",
    ].filter(Boolean);
    if (problems.length > 0) {
      failures.push(`${name}: ${problems.join(", ")} — ${res.status} ${text.slice(0, 140)}`);
    }
  }
  assert.deepEqual(failures, []);
  const normal = await app.fetch(
    new Request(URL_, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    }),
  );
  assert.equal(normal.status, 200);
  assert.equal(((await normal.json()) as { result: { tools: unknown[] } }).result.tools.length, 5);
});
