/**
 * The MCP corpus (mcp_corpus_cases.ts) against `/mcp-loop/mcp`, as 2025-11-25
 * requests and again as 2026-07-28 requests (with the per-request `_meta`
 * envelope and headers): each gets a 4xx with a JSON-RPC error, or the JSON-RPC
 * error (or tool error) its rule says — never a 5xx, never -32603, never a
 * schema dump — and a normal request works right after.
 */
import assert from "node:assert/strict";
import { mcpApp } from "../support/mcp_fixture.ts";
import { type Case, generated, handPicked, TOOL_ERROR } from "./mcp_corpus_cases.ts";

const corpus = [...handPicked, ...generated()];

type Rpc = { error?: { code: number; message: string }; result?: { isError?: boolean } };

/** The same request as a 2026-07-28 client sends it, when it is a JSON-RPC object with params. */
async function modern(request: Request): Promise<Request | undefined> {
  let body: Record<string, unknown>;
  try {
    body = await request.clone().json();
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  if (typeof body.method !== "string" || body.method === "initialize") return undefined;
  const params = body.params === undefined ? {} : body.params;
  if (typeof params !== "object" || params === null || Array.isArray(params)) return undefined;
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "corpus", version: "1" },
  };
  const name = (params as { name?: unknown; uri?: unknown }).name ??
    (params as { uri?: unknown }).uri;
  const headers = new Headers(request.headers);
  headers.set("mcp-protocol-version", "2026-07-28");
  headers.set("mcp-method", body.method);
  if (typeof name === "string" && /^[\x20-\x7e]+$/.test(name)) headers.set("mcp-name", name);
  return new Request(request.url, {
    method: "POST",
    headers,
    body: JSON.stringify({ ...body, params: { ...params, _meta } }),
  });
}

async function check(
  app: Awaited<ReturnType<typeof mcpApp>>,
  { name, expect }: Case,
  req: Request,
) {
  const res = await app.fetch(req);
  const text = await res.text();
  let body: Rpc | Rpc[] | undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const messages = Array.isArray(body) ? body : body ? [body] : [];
  const errors = messages.map((m) => m.error?.code).filter((c) => c !== undefined);
  const toolError = messages.some((m) => m.result?.isError === true);
  const problems = [
    res.status >= 500 && `status ${res.status}`,
    errors.includes(-32603) && "internal error -32603",
    /"code":\s*"invalid_type"|\\n\s+\{/.test(text) && "a schema dump in the answer",
    expect === TOOL_ERROR && !toolError && `expected a tool error, got ${JSON.stringify(errors)}`,
    typeof expect === "number" && !errors.includes(expect) &&
    `expected ${expect}, got ${JSON.stringify(errors)}`,
    res.status >= 400 &&
    !(body && !Array.isArray(body) && typeof body.error?.message === "string") &&
    "a 4xx without a JSON-RPC error message",
  ].filter(Boolean);
  return problems.length > 0
    ? [`${name}: ${problems.join(", ")} — ${res.status} ${text.slice(0, 140)}`]
    : [];
}

Deno.test(`/mcp-loop/mcp: ${corpus.length} malformed requests, in both protocol eras, get the right JSON-RPC answer and never a 5xx`, async () => {
  assert.ok(corpus.length >= 200, `only ${corpus.length} cases`);
  const app = await mcpApp();
  const failures: string[] = [];
  let modernCases = 0;
  for (const entry of corpus) {
    failures.push(...await check(app, entry, entry.request()));
    const asModern = await modern(entry.request());
    if (asModern) {
      modernCases++;
      failures.push(...(await check(app, entry, asModern)).map((f) => `(2026-07-28) ${f}`));
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(modernCases > 100, `only ${modernCases} cases as 2026-07-28 requests`);
  const normal = await app.fetch(
    new Request("http://localhost/mcp-loop/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    }),
  );
  assert.equal(normal.status, 200);
  assert.equal(((await normal.json()) as { result: { tools: unknown[] } }).result.tools.length, 8);
});
