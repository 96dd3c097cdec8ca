import assert from "node:assert/strict";
import { post, testApp, validBody } from "../support/test_app.ts";

const { app, store } = testApp();

async function expectError(req: Request, status: number, code: string) {
  const res = await app.fetch(req);
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  const json = JSON.parse(text);
  assert.equal(json.success, false);
  assert.equal(json.error.code, code, text);
  assert.equal(typeof json.error.message, "string");
  assert.ok(json.error.message.length > 10);
  assert.doesNotMatch(text, /\bat \S+ \(|\.ts:\d+/, "no stack trace");
  return json;
}

Deno.test("malformed JSON gets 400 INVALID_JSON", async () => {
  await expectError(post('{"mode": "general",'), 400, "INVALID_JSON");
  await expectError(post("{'single': 'quotes'}"), 400, "INVALID_JSON");
  await expectError(post(""), 400, "INVALID_JSON");
});

Deno.test("a body that is not an object gets 400 BAD_REQUEST", async () => {
  for (const body of ["[]", '"text"', "null", "42", "true"]) {
    await expectError(post(body), 400, "BAD_REQUEST");
  }
});

Deno.test("wrong types get 422 VALIDATION_FAILED naming the field", async () => {
  const json = await expectError(post({ ...validBody(), sessionId: 42 }), 422, "VALIDATION_FAILED");
  assert.match(json.error.message, /sessionId/);
  await expectError(post({ ...validBody(), messages: "hi" }), 422, "VALIDATION_FAILED");
  await expectError(
    post({ ...validBody(), messages: [{ role: "user", content: 7 }] }),
    422,
    "VALIDATION_FAILED",
  );
  await expectError(post({ ...validBody(), context: [] }), 422, "VALIDATION_FAILED");
});

Deno.test("an unknown mode gets 422 listing the path", async () => {
  const json = await expectError(
    post({ ...validBody(), mode: "wizard" }),
    422,
    "VALIDATION_FAILED",
  );
  assert.equal(json.error.details.issues[0].path, "mode");
});

Deno.test("no messages get 422", async () => {
  const { messages: _omit, ...noMessages } = validBody();
  await expectError(post(noMessages), 422, "VALIDATION_FAILED");
  await expectError(post({ ...validBody(), messages: [] }), 422, "VALIDATION_FAILED");
});

Deno.test("an empty latest message gets 422 EMPTY_MESSAGE", async () => {
  for (const content of ["", "   \n\t"]) {
    await expectError(
      post({
        ...validBody(),
        messages: [{ role: "user", content: "earlier" }, { role: "user", content }],
      }),
      422,
      "EMPTY_MESSAGE",
    );
  }
});

Deno.test("a missing sessionId gets 422", async () => {
  const { sessionId: _omit, ...noSession } = validBody();
  const json = await expectError(post(noSession), 422, "VALIDATION_FAILED");
  assert.equal(json.error.details.issues[0].path, "sessionId");
});

Deno.test("a body over 1 MiB gets 413, with or without Content-Length", async () => {
  const huge = JSON.stringify({ ...validBody(), context: { blob: "x".repeat(1_100_000) } });
  await expectError(post(huge), 413, "PAYLOAD_TOO_LARGE");
  const chunked = new Request("http://localhost/mcp-loop", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(huge));
        controller.close();
      },
    }),
  });
  assert.equal(chunked.headers.get("content-length"), null);
  await expectError(chunked, 413, "PAYLOAD_TOO_LARGE");
});

Deno.test("a message over the size limit gets 422", async () => {
  await expectError(
    post({ ...validBody(), messages: [{ role: "user", content: "x".repeat(32_001) }] }),
    422,
    "VALIDATION_FAILED",
  );
});

Deno.test("a wrong content type gets 415 and invalid UTF-8 gets 400", async () => {
  await expectError(
    post(JSON.stringify(validBody()), { headers: { "content-type": "text/plain" } }),
    415,
    "UNSUPPORTED_MEDIA_TYPE",
  );
  const invalidUtf8 = new Request("http://localhost/mcp-loop", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  });
  await expectError(invalidUtf8, 400, "INVALID_ENCODING");
});

Deno.test("context may not override the loop's own keys", async () => {
  await expectError(
    post({ ...validBody(), context: { sessionId: "x" } }),
    422,
    "VALIDATION_FAILED",
  );
});

Deno.test("none of the bad inputs stored anything, and a normal request still works", async () => {
  assert.equal(store.rows.length, 0);
  const res = await app.fetch(post(validBody()));
  assert.equal(res.status, 200);
});

Deno.test("bad approvals get 422 with issues shaped as the loop request's (dotted path, message, code)", async () => {
  const path = `/mcp-loop/runs/${crypto.randomUUID()}/approvals`;
  const json = await expectError(
    post({ approvals: [{ id: "x", approved: "yes" }] }, { path }),
    422,
    "VALIDATION_FAILED",
  );
  assert.deepEqual(Object.keys(json.error.details.issues[0]).sort(), ["code", "message", "path"]);
  assert.equal(json.error.details.issues[0].path, "approvals.0.approved");
  assert.match(json.error.message, /approvals\.0\.approved/);
  const empty = await expectError(post({ approvals: [] }, { path }), 422, "VALIDATION_FAILED");
  assert.equal(empty.error.details.issues[0].path, "approvals");
});
