/**
 * The malformed requests of the MCP corpus (hand-picked and generated), with
 * what each must get. The rule: not a JSON-RPC request object → -32600;
 * a request whose params do not fit its method → -32602; an unknown method →
 * -32601; args that fail a tool's schema → a tool error (`isError: true`).
 */
import fc from "fast-check";

const URL_ = "http://localhost/mcp-loop/mcp";
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** A `tools/call` answered with `isError: true` instead of a JSON-RPC error. */
export const TOOL_ERROR = "tool error";

/** One malformed request and what it must get: a JSON-RPC error code, or a tool error. */
export type Case = { name: string; request: () => Request; expect?: number | typeof TOOL_ERROR };

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
/** A call whose args fail the tool's schema: a tool error the model can fix (SEP-1303). */
const badArgs = (name: string, params: unknown): Case => ({
  ...call(name, "tools/call", params, -32602),
  expect: TOOL_ERROR,
});

export const handPicked: Case[] = [
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
    "resources/explode",
    "prompts/run",
    "completion/suggest",
    "sampling/createMessage",
    "rpc.discover",
    "TOOLS/LIST",
    "tools/list/extra",
    "__proto__",
    "elicitation/create",
    "roots/list",
  ]
    .map((method) => call(`unknown method "${method}"`, method, {}, -32601)),
  // A request whose params are not an object: -32602 (the message itself is well formed).
  ...[null, [], "x", 5].map((params) =>
    call(`tools/call params ${JSON.stringify(params)}`, "tools/call", params, -32602)
  ),
  ...[
    {},
    { name: 1 },
    { name: null },
    { name: ["get_loop_status"] },
    { name: "nope" },
    { name: "" },
    { name: "get_loop_status", arguments: [] },
    { name: "get_loop_status", arguments: "x" },
  ]
    .map((params, i) =>
      toolCall(`tools/call params ${i}: ${JSON.stringify(params)}`.slice(0, 80), params)
    ),
  ...[
    { name: "get_loop_status" },
    { name: "get_loop_status", arguments: { loop_id: 5 } },
    { name: "get_loop_status", arguments: { loop_id: "ZZZZZZZZ" } },
  ].map((params, i) => badArgs(`tools/call bad args ${i}: ${JSON.stringify(params)}`, params)),
  ...[-1, 101, 1.5, "50", null, true, [], 1e9].map((score) =>
    badArgs(`decide with score ${JSON.stringify(score)}`, {
      name: "decide_loop_next_action",
      arguments: { loop_id: "a1b2c3d4", current_score: score },
    })
  ),
  ...["design", "", 5, null, "PLAN", ["plan"]].map((loopType) =>
    badArgs(`initialize with loop_type ${JSON.stringify(loopType)}`, {
      name: "initialize_refinement_loop",
      arguments: { loop_type: loopType },
    })
  ),
  // Wrong params for other methods: -32602.
  call("tools/list with a numeric cursor", "tools/list", { cursor: 5 }, -32602),
  call("tools/list with array params", "tools/list", [], -32602),
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
  call("ping with string params", "ping", "x", -32602),
  // Resources, prompts and completions (new surfaces): -32602 for anything that names nothing.
  ...[
    "mcp-loop://loops/zzzzzzzz",
    "mcp-loop://loops/00000000",
    "mcp-loop://loops/",
    "mcp-loop://sessions//messages",
    "mcp-loop://sessions/%E0%A4%A/messages",
    "mcp-loop://sessions/no-such-session/messages",
    "mcp-loop://sessions/x/other",
    "file:///etc/passwd",
    "https://example.com/",
    "",
    "x".repeat(5_000),
  ].map((uri) =>
    call(`resources/read ${JSON.stringify(uri.slice(0, 40))}`, "resources/read", { uri }, -32602)
  ),
  ...[{}, { uri: 5 }, { uri: null }, { uri: ["a"] }].map((params) =>
    call(`resources/read params ${JSON.stringify(params)}`, "resources/read", params, -32602)
  ),
  ...[
    {},
    { name: "nope" },
    { name: "refine" },
    { name: "refine", arguments: { loop_type: "novel" } },
    { name: "refine", arguments: { loop_type: 5 } },
    { name: "refine", arguments: [] },
    { name: "general" },
    { name: "general", arguments: { message: "" } },
    { name: "analyst", arguments: { message: { text: "x" } } },
    { name: 7 },
    { name: "__proto__" },
  ].map((params, i) =>
    call(`prompts/get ${i}: ${JSON.stringify(params)}`.slice(0, 80), "prompts/get", params, -32602)
  ),
  ...[
    {},
    { ref: { type: "ref/prompt", name: "refine" } },
    { ref: "refine", argument: { name: "loop_type", value: "p" } },
    { ref: { type: "ref/prompt", name: "refine" }, argument: { name: "loop_type" } },
    { ref: { type: "ref/prompt", name: "refine" }, argument: { name: 5, value: "p" } },
    { ref: { name: "refine" }, argument: { name: "loop_type", value: "p" } },
  ].map((params, i) =>
    call(
      `completion/complete ${i}: ${JSON.stringify(params)}`.slice(0, 80),
      "completion/complete",
      params,
      -32602,
    )
  ),
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
export function generated(): Case[] {
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
