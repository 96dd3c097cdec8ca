/**
 * A corpus of malformed `POST /mcp-loop` requests, hand-picked and generated:
 * every one must get a 4xx with `{success:false, error:{code, message}}` — never
 * a 5xx or a stack trace — and a normal request must work right after.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { MCPRequest } from "../../shared/contracts.ts";
import { mcpApp } from "../support/mcp_fixture.ts";

const URL_ = "http://localhost/mcp-loop";
const valid = () => ({
  mode: "general",
  sessionId: `corpus-${crypto.randomUUID()}`,
  messages: [{ role: "user", content: "hello" }],
});

type Case = { name: string; request: () => Request };

const raw = (name: string, body: BodyInit, contentType = "application/json"): Case => ({
  name,
  request: () =>
    new Request(URL_, { method: "POST", headers: { "content-type": contentType }, body }),
});
const json = (name: string, body: unknown): Case => raw(name, JSON.stringify(body));
const patch = (name: string, change: Record<string, unknown>): Case =>
  json(name, { ...valid(), ...change });
const message = (name: string, item: unknown): Case => patch(name, { messages: [item] });

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

const handPicked: Case[] = [
  // Broken JSON.
  ...[
    "{",
    '{"mode":',
    '{"mode":"general",}',
    "{'mode':'general'}",
    '{"a":NaN}',
    '{"a":Infinity}',
    "// comment\n{}",
    '{"a":1}{"b":2}',
    "[",
    "tru",
    '"unterminated',
    "\u0000",
    '{"a":"\u0001',
    "   ",
    "",
  ]
    .map((body, i) => raw(`broken JSON ${i}`, body)),
  // JSON that is not an object.
  ...["[]", "[1,2]", '"text"', "42", "true", "null", "-0", "1e400"].map((body) =>
    raw(`not an object: ${body}`, body)
  ),
  // Wrong types, field by field.
  ...[42, null, [], {}, "", "GENERAL", "wizard", true].map((mode) =>
    patch(`mode ${JSON.stringify(mode)}`, { mode })
  ),
  ...[42, null, [], {}, "", true].map((sessionId) =>
    patch(`sessionId ${JSON.stringify(sessionId)}`, { sessionId })
  ),
  ...[null, "hi", 42, {}, [[]], [null], [1, 2], true].map((messages) =>
    patch(`messages ${JSON.stringify(messages)}`, { messages })
  ),
  ...[
    {},
    { role: "user" },
    { content: "x" },
    { role: "robot", content: "x" },
    { role: "user", content: 42 },
    { role: "user", content: null },
    { role: "user", content: ["x"] },
    { role: "user", content: "x", extra: 1 },
    { role: 1, content: "x" },
    { role: "user", content: "x", name: 5 },
  ].map((item, i) => message(`message item ${i}`, item)),
  ...[[], "ctx", 42, true].map((context) =>
    patch(`context ${JSON.stringify(context)}`, { context })
  ),
  ...[{}, "x", 42].map((plannerRecommendations) =>
    patch(`plannerRecommendations ${JSON.stringify(plannerRecommendations)}`, {
      plannerRecommendations,
    })
  ),
  ...[{}, "x", [1], [{}], [{ name: "" }], [{ name: "x".repeat(65) }], [{ name: "x", extra: 1 }]]
    .map((availableTools) =>
      patch(`availableTools ${JSON.stringify(availableTools)}`, { availableTools })
    ),
  // Reserved context keys.
  ...["embeddedMessage", "recentMessages", "semanticMatches", "sessionId", "mode"].map((key) =>
    patch(`context.${key}`, { context: { [key]: "mine" } })
  ),
  // Huge strings.
  message("content over 32,000 characters", { role: "user", content: "x".repeat(32_001) }),
  patch("sessionId over 200 characters", { sessionId: "s".repeat(201) }),
  patch("sessionId of 100,000 characters", { sessionId: "s".repeat(100_000) }),
  patch("a body over 1 MiB", { context: { blob: "x".repeat(1_100_000) } }),
  message("a name over 200 characters", { role: "user", content: "x", name: "n".repeat(201) }),
  // Deep nesting.
  patch("context nested 100 deep", { context: { deep: JSON.parse(nested(100)) } }),
  raw(
    "context nested 100,000 deep",
    `{"mode":"general","sessionId":"s","messages":[{"role":"user","content":"x"}],"context":{"d":${
      nested(100_000)
    }}}`,
  ),
  patch("messages nested deep", { messages: JSON.parse(nested(80)) }),
  // Unknown fields.
  patch("unknown top-level field", { extra: true }),
  patch("unknown field named like a prototype", { ["__proto__"]: { polluted: true } }),
  // Empty and oversized messages arrays, empty latest message.
  patch("no messages", { messages: [] }),
  patch("201 messages", {
    messages: Array.from({ length: 201 }, () => ({ role: "user", content: "x" })),
  }),
  patch("latest message empty", { messages: [{ role: "user", content: "" }] }),
  patch("latest message whitespace", { messages: [{ role: "user", content: " \n\t " }] }),
  patch("earlier fine, latest empty", {
    messages: [{ role: "user", content: "ok" }, { role: "user", content: "" }],
  }),
  // Not UTF-8.
  ...[[0xff], [0xc3, 0x28], [0xe2, 0x82], [0xf0, 0x28, 0x8c, 0xbc], [0xed, 0xa0, 0x80]].map((
    bytes,
    i,
  ) => raw(`not UTF-8 ${i}`, new Uint8Array([0x7b, 0x22, ...bytes, 0x22, 0x3a, 0x31, 0x7d]))),
  // Wrong content types.
  ...[
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/xml",
    "",
  ]
    .map((type) => raw(`content type "${type}"`, JSON.stringify(valid()), type)),
  // Rounds and refinement (this round's request fields).
  ...[0, 6, -1, 1.5, "3", null, true, []].map((maxRounds) =>
    patch(`maxRounds ${JSON.stringify(maxRounds)}`, { maxRounds })
  ),
  ...[
    null,
    "spec",
    {},
    [],
    { loopType: "novel" },
    { loopType: "SPEC" },
    { loopType: "spec", loopId: "ABCDEF12" },
    { loopType: "spec", loopId: 5 },
    { loopType: "spec", loopId: "0a1b2c3" },
    { loopType: "spec", extra: 1 },
    { loopId: "0a1b2c3d" },
    { loopType: "spec", loopId: "0a1b2c3d" }, // well formed, but not the caller's loop: 404
  ].map((refinement) => patch(`refinement ${JSON.stringify(refinement)}`, { refinement })),
  // useChat bodies (UI messages with parts) that cannot become a request.
  ...[
    { id: "c", messages: [{ id: "m", role: "user", parts: "hi" }] },
    { id: "c", messages: [{ id: "m", role: "user", parts: [{ type: "text", text: 5 }] }] },
    { id: "c", messages: [{ id: "m", role: "robot", parts: [{ type: "text", text: "hi" }] }] },
    { id: "c", trigger: "submit-message", messages: [] },
    { id: 5, trigger: "submit-message", messages: [{ role: "user", parts: [] }] },
    { id: "c", mode: "wizard", messages: [{ role: "user", parts: [{ type: "text", text: "x" }] }] },
    { messages: [{ role: "user", parts: [{ type: "text", text: "no session" }] }], trigger: "x" },
  ].map((body, i) => json(`useChat body ${i}`, body)),
  ...["?stream=ui", "?stream=ui&includeEmbedding=true"].map((query): Case => ({
    name: `bad body with ${query}`,
    request: () =>
      new Request(`${URL_}${query}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ mode: "x" }),
      }),
  })),
  // The playground's routes.
  ...[
    "/mcp-loop/playground/nope.js",
    "/mcp-loop/playground/..%2f..%2fdeno.json",
    "/mcp-loop/playground/%00",
    "/mcp-loop/playground/client.js/extra",
    "/mcp-loop/playgroundx",
  ].map((path): Case => ({
    name: `GET ${path}`,
    request: () => new Request(`http://localhost${path}`),
  })),
  ...["POST", "PUT", "DELETE"].map((method): Case => ({
    name: `${method} /mcp-loop/playground`,
    request: () => new Request("http://localhost/mcp-loop/playground", { method, body: "x" }),
  })),
  // Wrong methods.
  ...["GET", "PUT", "DELETE", "PATCH"].map((method): Case => ({
    name: `method ${method}`,
    request: () =>
      new Request(URL_, method === "GET" ? { method } : { method, body: JSON.stringify(valid()) }),
  })),
];

/** Generated: requests whose fields are random JSON values, kept only when MCPRequest rejects them. */
function generated(count: number): Case[] {
  const field = fc.oneof(fc.jsonValue(), fc.constant(undefined));
  const arbitrary = fc.record({
    mode: fc.oneof(fc.constantFrom("general", "analyst"), field),
    sessionId: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), field),
    messages: fc.oneof(
      fc.array(
        fc.record({
          role: fc.oneof(fc.constant("user"), fc.jsonValue()),
          content: fc.oneof(fc.string(), fc.jsonValue()),
        }),
      ),
      field,
    ),
    context: field,
    extra: fc.oneof(fc.constant(undefined), fc.jsonValue()),
  });
  const bodies = fc.sample(arbitrary, { numRuns: count * 3, seed: 20261121 })
    .map((b) => Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)))
    .filter((b) => !MCPRequest.safeParse(b).success)
    .slice(0, count);
  const strings = fc.sample(fc.string({ maxLength: 60 }), { numRuns: 40, seed: 7 })
    .filter((s) => {
      try {
        JSON.parse(s);
        return false;
      } catch {
        return true;
      }
    });
  return [
    ...bodies.map((body, i) => json(`generated body ${i}`, body)),
    ...strings.map((s, i) => raw(`generated garbage ${i}`, s)),
  ];
}

const corpus = [...handPicked, ...generated(100)];

Deno.test(`POST /mcp-loop: ${corpus.length} malformed requests each get a 4xx JSON error with a code and a message`, async () => {
  assert.ok(corpus.length >= 200, `only ${corpus.length} cases`);
  const app = await mcpApp();
  const failures: string[] = [];
  for (const { name, request } of corpus) {
    const res = await app.fetch(request());
    const text = await res.text();
    let body: { success?: boolean; error?: { code?: unknown; message?: unknown } } = {};
    try {
      body = JSON.parse(text);
    } catch {
      // reported below
    }
    const ok = res.status >= 400 && res.status < 500 && body.success === false &&
      typeof body.error?.code === "string" && typeof body.error?.message === "string" &&
      !/\bat \S+ \(|\.ts:\d+:\d+/.test(text);
    if (!ok) failures.push(`${name}: ${res.status} ${text.slice(0, 160)}`);
  }
  assert.deepEqual(failures, []);
  const normal = await app.fetch(
    new Request(URL_, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(valid()),
    }),
  );
  assert.equal(normal.status, 200);
});
