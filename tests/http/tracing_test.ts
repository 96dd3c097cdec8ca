import assert from "node:assert/strict";
import { z } from "zod";
import { createConsoleLogger } from "../../shared/log/console_logger.ts";
import { createRedactor } from "../../shared/log/redact.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { post, testApp, validBody } from "../support/test_app.ts";

const API_KEY = "ci-key-0123456789abcdef";

/**
 * The app with a console logger whose JSON lines are kept — unredacted, so a
 * test sees what the code itself logs, not what the redactor would catch.
 */
function loggedApp(planner = new ScriptedPlanner([{ tool: "finalize_summary", args: {} }])) {
  const lines: string[] = [];
  const env = { MCP_LOOP_API_KEYS: `ci=${API_KEY}`, MCP_LOOP_REQUIRE_AUTH: "false" };
  const logger = createConsoleLogger({
    level: "debug",
    write: (line) => lines.push(line),
    redact: (line) => line,
  });
  const tools = [defineTool({
    name: "flaky",
    description: "Fails, quoting what it was asked",
    argsSchema: z.object({ q: z.string().default("") }),
    annotations: { readOnlyHint: true },
    run: ({ args }) => {
      throw new Error(`no results for "${args.q}"`);
    },
  })];
  const { app } = testApp({ logger, planner, tools }, env);
  const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { app, lines, entries };
}

Deno.test("every response carries an x-request-id: success, errors, health, MCP, 404 and preflight", async () => {
  const { app } = loggedApp();
  const responses = await Promise.all([
    app.fetch(post(validBody())),
    app.fetch(post("{not json")),
    app.fetch(new Request("http://localhost/mcp-loop/health")),
    app.fetch(new Request("http://localhost/mcp-loop/health", { method: "DELETE" })),
    app.fetch(new Request("http://localhost/nowhere")),
    app.fetch(post({ jsonrpc: "2.0", id: 1, method: "ping" }, {
      path: "/mcp-loop/mcp",
      headers: { accept: "application/json, text/event-stream" },
    })),
    app.fetch(
      new Request("http://localhost/mcp-loop", {
        method: "OPTIONS",
        headers: { origin: "https://app.example", "access-control-request-method": "POST" },
      }),
    ),
  ]);
  for (const res of responses) {
    assert.match(res.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/, `${res.status}`);
    await res.body?.cancel();
  }
  assert.equal(new Set(responses.map((r) => r.headers.get("x-request-id"))).size, responses.length);
});

Deno.test("a client's x-request-id is kept when it is sane and replaced when it is not", async () => {
  const { app } = loggedApp();
  const sent = await app.fetch(post(validBody(), { headers: { "x-request-id": "web-42.abc" } }));
  assert.equal(sent.headers.get("x-request-id"), "web-42.abc");
  for (const bad of ["has space", "x".repeat(200), 'quote"d']) {
    const res = await app.fetch(post(validBody(), { headers: { "x-request-id": bad } }));
    assert.notEqual(res.headers.get("x-request-id"), bad);
    assert.match(res.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  }
  const failed = await app.fetch(post("{", { headers: { "x-request-id": "web-43" } }));
  assert.equal(failed.headers.get("x-request-id"), "web-43");
});

Deno.test("each request writes one JSON line with request id, caller, stage timings and outcome", async () => {
  const { app, entries } = loggedApp();
  const res = await app.fetch(post(validBody(), {
    headers: { "x-request-id": "trace-me", authorization: `Bearer ${API_KEY}` },
  }));
  assert.equal(res.status, 200);
  const line = entries().find((e) => e.message === "request" && e.requestId === "trace-me");
  assert.ok(line, "a request line");
  assert.equal(line.caller, "key:ci");
  assert.equal(line.outcome, "ok");
  assert.equal(line.status, 200);
  assert.equal(line.path, "/mcp-loop");
  assert.equal(line.mode, "general");
  assert.deepEqual(Object.keys(line.stages as object), ["context", "plan", "execute", "finalize"]);
  for (const ms of Object.values(line.stages as Record<string, number>)) {
    assert.equal(typeof ms, "number");
  }
  const failed = await app.fetch(post({ mode: "general" }, { headers: { "x-request-id": "bad" } }));
  assert.equal(failed.status, 422);
  const bad = entries().find((e) => e.message === "request" && e.requestId === "bad");
  assert.equal(bad?.outcome, "VALIDATION_FAILED");
  assert.equal(bad?.caller, "anonymous");
});

Deno.test("a streamed run logs its line when the stream ends, with the stages", async () => {
  const { app, entries } = loggedApp();
  const res = await app.fetch(post(validBody(), {
    headers: { accept: "text/event-stream", "x-request-id": "streamed" },
  }));
  await res.text();
  const lines = entries().filter((e) => e.message === "request" && e.requestId === "streamed");
  assert.equal(lines.length, 1);
  assert.equal(lines[0].outcome, "ok");
  assert.ok("finalize" in (lines[0].stages as object));
});

Deno.test("no log line holds message content, a bearer token or a key, on success or failure", async () => {
  const marker = `secret-words-${crypto.randomUUID()}`;
  const jwtLike = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4eHh4eHh4eHgifQ.c2lnbmF0dXJlc2lnbmF0dXJl";
  const planner = new ScriptedPlanner([
    { tool: "flaky", args: { q: marker } },
    { tool: "no_such_tool", args: {} },
    { tool: `tool named ${marker}`, args: {} },
    { tool: "finalize_summary", args: { instructions: marker } },
  ]);
  const { app, lines } = loggedApp(planner);
  const auth = { authorization: `Bearer ${API_KEY}` };
  const traced = await (await app.fetch(post(validBody(marker), { headers: auth }))).json();
  assert.match(traced.data.intermediateResults[0].error, /no results for/, "the trace keeps it");
  await (await app.fetch(
    post(validBody(marker), { headers: { ...auth, accept: "text/event-stream" } }),
  )).text();
  await (await app.fetch(post(`{"messages":[{"content":"${marker}"`, { headers: auth }))).text();
  await (await app.fetch(
    post(validBody(marker), { headers: { authorization: `Bearer ${jwtLike}` } }),
  ))
    .text();
  await (await app.fetch(
    post(validBody(marker), { headers: { authorization: "Bearer wrong-key-123456789" } }),
  ))
    .text();
  await (await app.fetch(post({ ...validBody(marker), mode: marker }))).text();
  assert.ok(lines.length >= 6, "the requests were logged");
  for (const line of lines) {
    assert.ok(!line.includes(marker), `content leaked: ${line}`);
    assert.ok(!line.includes(API_KEY), `key leaked: ${line}`);
    assert.ok(!line.includes(jwtLike), `token leaked: ${line}`);
    assert.ok(!line.includes("wrong-key-123456789"), `credential leaked: ${line}`);
  }
});

Deno.test("the console logger writes each level at its console severity", () => {
  const calls: string[] = [];
  const logger = createConsoleLogger({
    level: "debug",
    write: (_line, level) => calls.push(level),
  });
  logger.debug("d");
  logger.info("i");
  logger.warn("w");
  logger.error("e");
  assert.deepEqual(calls, ["debug", "info", "warn", "error"]);
});

Deno.test("the console logger redacts configured secrets and key-shaped strings from every line", () => {
  const lines: string[] = [];
  const logger = createConsoleLogger({
    write: (line) => lines.push(line),
    redact: createRedactor(["configured-secret-value"]),
  });
  logger.error("upstream failed", {
    error:
      "401 for key sk-abcdefghijklmnop with configured-secret-value and Bearer abc.def.ghijklmn",
  });
  assert.doesNotMatch(lines[0], /sk-abcdefghijklmnop|configured-secret-value|abc\.def\.ghijklmn/);
  assert.equal(JSON.parse(lines[0]).message, "upstream failed");
});

Deno.test("an MCP request's line names the method, the tool and how the call ended", async () => {
  const { app, entries } = loggedApp();
  const call = (name: string, id: string) =>
    app.fetch(
      post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } }, {
        path: "/mcp-loop/mcp",
        headers: { accept: "application/json, text/event-stream", "x-request-id": id },
      }),
    );
  await (await call("finalize_summary", "mcp-ok")).text();
  await (await call("no_such_tool", "mcp-unknown")).text();
  await (await call("flaky", "mcp-failed")).text();
  const line = (id: string) => entries().find((e) => e.message === "request" && e.requestId === id);
  assert.deepEqual(
    [line("mcp-ok")?.outcome, line("mcp-ok")?.rpcMethod, line("mcp-ok")?.tool],
    ["ok", "tools/call", "finalize_summary"],
  );
  assert.equal(line("mcp-unknown")?.outcome, "UNKNOWN_TOOL");
  assert.equal(line("mcp-failed")?.outcome, "TOOL_FAILED");
  assert.equal(line("mcp-failed")?.caller, "anonymous");
});

Deno.test("a log line is JSON with time, level and message first; a field of the same name wins", () => {
  const lines: string[] = [];
  const logger = createConsoleLogger({ level: "debug", write: (line) => lines.push(line) });
  logger.info("request", { status: 200, caller: "anonymous", skipped: undefined });
  logger.info("bare");
  logger.warn("moved", { message: "the field's own message", level: "custom" });
  logger.debug('quotes " and \\ and\nnewlines', { nested: { a: [1, "two"] } });
  const [request, bare, moved, quoted] = lines.map((line) => JSON.parse(line));
  assert.deepEqual(Object.keys(request), ["time", "level", "message", "status", "caller"]);
  assert.equal(request.level, "info");
  assert.ok(!Number.isNaN(Date.parse(request.time)));
  assert.deepEqual(Object.keys(bare), ["time", "level", "message"]);
  assert.equal(moved.message, "the field's own message");
  assert.equal(moved.level, "custom");
  assert.equal(quoted.message, 'quotes " and \\ and\nnewlines');
  assert.deepEqual(quoted.nested, { a: [1, "two"] });
  for (const line of lines) assert.ok(!line.includes("\n"), "one line per entry");
});
