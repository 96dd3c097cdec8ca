/**
 * MCP approvals for 2025-11-25 clients over HTTP (the v1 SDK's client with
 * its Streamable HTTP transport, on loopback): a client that declares form
 * elicitation gets a session, is sent `elicitation/create` on the call's SSE
 * stream, and its answer — which may reach another instance sharing the
 * database — is recorded once; the call runs once, on the instance that
 * asked. A client that declares no elicitation gets no session and the
 * refusal that says how else to get the call run.
 */
import assert from "node:assert/strict";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createJsonSchemaValidator } from "../../shared/mcp/json_schema_validator.ts";
import { callDigest } from "../../shared/runs/approval_store.ts";
import { sharedPglite } from "../support/pglite.ts";
import {
  type Answer,
  approvalsSetup,
  APPROVE,
  isError,
  KEYS,
  text,
} from "../support/mcp_approvals_fixture.ts";

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * What the client's person does with a question (`signal` aborts when the server withdraws it;
 * `id` is the question's JSON-RPC id).
 */
type Person = (
  question: { message: string },
  signal: AbortSignal,
  id: string | number,
) => Promise<Answer>;

/**
 * A 2025-11-25 client of `key`. With `person` it declares form elicitation and
 * answers each question so (recording it in `asked`); `fetch` sees every HTTP
 * exchange.
 */
async function legacyClient(
  url: URL,
  key: string,
  { person, asked = [], fetch }: { person?: Person; asked?: unknown[]; fetch?: Fetch } = {},
) {
  const client = new LegacyClient({ name: "legacy-http", version: "1" }, {
    capabilities: person ? { elicitation: { form: {} } } : {},
    jsonSchemaValidator: createJsonSchemaValidator(),
  });
  if (person) {
    client.setRequestHandler(
      ElicitRequestSchema,
      (
        request: { params: { message: string } },
        extra: { signal: AbortSignal; requestId: string | number },
      ) => {
        asked.push(request.params);
        return person(request.params, extra.signal, extra.requestId);
      },
    );
  }
  const transport = new LegacyTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    ...(fetch ? { fetch } : {}),
  });
  await client.connect(transport);
  return { client, transport };
}

const says = (answer: Answer): Person => () => Promise.resolve(answer);

/** Whether a POST body is the client's answer to a server request. */
function isAnswer(init?: RequestInit): boolean {
  if (typeof init?.body !== "string") return false;
  const body = JSON.parse(init.body);
  return !("method" in body) && ("result" in body || "error" in body);
}

/** The statuses of the approval records of `tool` with `args` for API key `name`. */
async function approvalStatuses(name: string, tool: string, args: unknown): Promise<string[]> {
  const rows = await (await sharedPglite()).query<{ status: string }>(
    `select status from public.mcp_tool_approvals
     where owner = $1 and tool = $2 and args_digest = $3 order by created_at`,
    [`key:${name}`, tool, await callDigest(args)],
  );
  return rows.map((row) => row.status);
}

/** An invoice id no other test uses (approval records share the database). */
const invoice = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;

Deno.test("MCP 2025-11-25 over HTTP with elicitation: the client gets a session, is asked on the call's stream, and the approved call runs once", async () => {
  const t = await approvalsSetup();
  const asked: unknown[] = [];
  const { client, transport } = await legacyClient(t.url, KEYS.alice, {
    person: says(APPROVE),
    asked,
  });
  try {
    assert.match(transport.sessionId ?? "", /^[A-Za-z0-9_-]{43}$/);
    const id = invoice("s");
    const result = await client.callTool({ name: "delete_invoice", arguments: { id } });
    assert.equal(isError(result), false, text(result));
    assert.deepEqual(result.content, [{ type: "text", text: `{"deleted":"${id}"}` }]);
    assert.equal(asked.length, 1);
    assert.ok((asked[0] as { message: string }).message.includes(`"delete_invoice"`));
    assert.ok((asked[0] as { message: string }).message.includes(`{"id":"${id}"}`));
    assert.deepEqual(t.calls, [`delete:${id}`]);
    assert.deepEqual(t.audit.rows.map((row) => [row.tool, row.success]), [[
      "delete_invoice",
      true,
    ]]);
    // One approval record, the one the loop's approvals use too, answered once.
    assert.deepEqual(await approvalStatuses("alice", "delete_invoice", { id }), ["approved"]);
    const read = await client.callTool({ name: "find_invoice", arguments: { number: "7" } });
    assert.equal(isError(read), false, "a call needing no approval is not asked about");
    assert.equal(asked.length, 1);
  } finally {
    await client.close();
    await t.close();
  }
});

Deno.test("MCP 2025-11-25 over HTTP with elicitation: a declined or cancelled question runs nothing", async () => {
  const t = await approvalsSetup();
  const { client } = await legacyClient(t.url, KEYS.bob, {
    person: (question) =>
      Promise.resolve(
        question.message.includes("no-") ? { action: "decline" } : { action: "cancel" },
      ),
  });
  const [no, cancel] = [invoice("no"), invoice("cancel")];
  try {
    const declined = await client.callTool({ name: "delete_invoice", arguments: { id: no } });
    assert.equal(isError(declined), true);
    assert.match(text(declined), /did not run: the person declined it/);
    const cancelled = await client.callTool({ name: "delete_invoice", arguments: { id: cancel } });
    assert.match(text(cancelled), /did not run: the approval prompt was cancelled/);
    assert.deepEqual(t.calls, []);
    assert.deepEqual(t.audit.rows.map((row) => row.success), [false, false]);
    for (const id of [no, cancel]) {
      assert.deepEqual(await approvalStatuses("bob", "delete_invoice", { id }), ["declined"]);
    }
  } finally {
    await client.close();
    await t.close();
  }
});

Deno.test("MCP 2025-11-25 over HTTP: the answer may reach another instance on the same database; the call runs on the one that asked", async () => {
  const [a, b] = await Promise.all([approvalsSetup(), approvalsSetup()]);
  const answered: Promise<number>[] = [];
  // The client's answers go to instance B; everything else to A.
  const split: Fetch = (url, init) => {
    if (!isAnswer(init)) return fetch(url, init);
    const res = fetch(b.url, init);
    answered.push(res.then((res) => res.status));
    return res;
  };
  const { client, transport } = await legacyClient(a.url, KEYS.alice, {
    person: says(APPROVE),
    fetch: split,
  });
  try {
    const result = await client.callTool({ name: "delete_invoice", arguments: { id: "x-1" } });
    assert.equal(isError(result), false, text(result));
    // (The result can arrive before the answer's own 202 does: the call goes on once it is recorded.)
    assert.deepEqual(await Promise.all(answered), [202]);
    assert.deepEqual([a.calls, b.calls], [["delete:x-1"], []]);
    // B serves the session's requests too: what the client declared is in the database.
    const listed = await fetch(b.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${KEYS.alice}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": transport.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" }),
    });
    assert.equal(listed.status, 200);
    assert.ok(((await listed.json()).result.tools as unknown[]).length > 0);
  } finally {
    await client.close();
    await Promise.all([a.close(), b.close()]);
  }
});

Deno.test("MCP 2025-11-25 over HTTP: an answer is taken once — a second or replayed one is refused and nothing runs twice", async () => {
  const t = await approvalsSetup();
  let replay: RequestInit | undefined;
  let sent!: (outcome: Promise<{ statuses: number[]; refusals: string[] }>) => void;
  const sentTwice = new Promise<{ statuses: number[]; refusals: string[] }>((resolve) =>
    sent = resolve
  );
  // The client's answer is sent twice at once; one is taken, the other refused.
  const twice: Fetch = (url, init) => {
    if (!isAnswer(init)) return fetch(url, init);
    replay = init;
    const both = Promise.all([fetch(url, init), fetch(url, init)]);
    sent(both.then(async (answers) => ({
      statuses: answers.map((res) => res.status),
      refusals: await Promise.all(
        answers.filter((res) => res.status !== 202).map((res) => res.text()),
      ),
    })));
    return both.then((answers) => answers.find((res) => res.status === 202) ?? answers[0]);
  };
  const { client } = await legacyClient(t.url, KEYS.alice, {
    person: says(APPROVE),
    fetch: twice,
  });
  try {
    const amount = 500 + Math.random();
    const result = await client.callTool({ name: "pay", arguments: { amount } });
    assert.equal(isError(result), false, text(result));
    // (The result can arrive before the answers' own statuses do.)
    const { statuses, refusals } = await sentTwice;
    assert.deepEqual(statuses.sort(), [202, 400]);
    assert.match(refusals[0], /No request of this session waits for the answer/);
    const late = await fetch(t.url, replay);
    assert.equal(late.status, 400, "a replay after the call is refused");
    await late.body?.cancel();
    assert.deepEqual(t.calls, [`pay:${amount}`]);
    assert.deepEqual(await approvalStatuses("alice", "pay", { amount }), ["approved"]);
  } finally {
    await client.close();
    await t.close();
  }
});

Deno.test("MCP 2025-11-25 over HTTP without elicitation: no session, and a call needing approval is refused with how to get it approved", async () => {
  const t = await approvalsSetup();
  const { client, transport } = await legacyClient(t.url, KEYS.alice);
  try {
    assert.equal(transport.sessionId, undefined);
    const result = await client.callTool({ name: "delete_invoice", arguments: { id: "old" } });
    assert.equal(isError(result), true);
    assert.match(text(result), /did not declare the elicitation capability \(form mode\)/);
    assert.match(
      text(result),
      /a 2025-11-25 client over HTTP then sends the Mcp-Session-Id header it gets back/,
    );
    assert.match(text(result), /POST \/mcp-loop\/runs\/\{runId\}\/approvals/);
    assert.doesNotMatch(text(result), /approved: true/);
    assert.deepEqual(t.calls, []);
    assert.deepEqual(t.audit.rows.map((row) => [row.tool, row.success]), [[
      "delete_invoice",
      false,
    ]]);
  } finally {
    await client.close();
    await t.close();
  }
});

Deno.test("MCP 2025-11-25 over HTTP: a question nobody answers in time is withdrawn, the call ends without running, audited, and a late answer is refused", async () => {
  // The wait as a deployment would set it (typed option, bounded like the others).
  const t = await approvalsSetup({}, { mcp: { questionWaitMs: 300 } });
  assert.equal(t.app.mcp.sessions!.waitMs, 300);
  let withdrawn!: () => void;
  const sawWithdrawal = new Promise<void>((resolve) => withdrawn = resolve);
  let wireId: unknown;
  const { client, transport } = await legacyClient(t.url, KEYS.alice, {
    // The person never answers; the server's notifications/cancelled aborts the question.
    person: (_question, signal, id) =>
      new Promise((_resolve, reject) => {
        wireId = id;
        const gone = () => {
          withdrawn();
          reject(signal.reason);
        };
        if (signal.aborted) gone();
        else signal.addEventListener("abort", gone);
      }),
  });
  try {
    const id = invoice("slow");
    const result = await client.callTool({ name: "delete_invoice", arguments: { id } });
    assert.equal(isError(result), true);
    assert.match(text(result), /nobody answered within 0\.3 s/);
    await sawWithdrawal;
    assert.deepEqual(t.calls, []);
    // Refused through the one way a tool is called, so audited like any refusal.
    assert.deepEqual(t.audit.rows.map((row) => [row.tool, row.success, row.source]), [[
      "delete_invoice",
      false,
      "mcp",
    ]]);
    assert.match(t.audit.rows[0].error ?? "", /nobody answered/);
    const late = await fetch(t.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${KEYS.alice}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": transport.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: wireId, result: APPROVE }),
    });
    assert.equal(typeof wireId, "string");
    assert.equal(late.status, 400);
    await late.body?.cancel();
    assert.deepEqual(t.calls, []);
    assert.deepEqual(await approvalStatuses("alice", "delete_invoice", { id }), ["pending"]);
  } finally {
    await client.close();
    await t.close();
  }
});

Deno.test("MCP 2025-11-25 over HTTP: the client's cancel of a call that waits for its answer ends it; the answer given later runs nothing", async () => {
  const t = await approvalsSetup();
  let asked!: () => void;
  const question = new Promise<void>((resolve) => asked = resolve);
  let release!: (answer: Answer) => void;
  const held = new Promise<Answer>((resolve) => release = resolve);
  let answered!: (status: number) => void;
  const answer = new Promise<number>((resolve) => answered = resolve);
  let delivered!: (status: number) => void;
  const cancelDelivered = new Promise<number>((resolve) => delivered = resolve);
  const { client } = await legacyClient(t.url, KEYS.bob, {
    person: () => {
      asked();
      return held;
    },
    fetch: async (url, init) => {
      const res = await fetch(url, init);
      if (isAnswer(init)) answered(res.status);
      if (String(init?.body).includes("notifications/cancelled")) delivered(res.status);
      return res;
    },
  });
  // The refused answer surfaces as a transport error on the client: expected here.
  client.onerror = () => {};
  try {
    const stop = new AbortController();
    const call = client.callTool({ name: "delete_invoice", arguments: { id: "c-1" } }, undefined, {
      signal: stop.signal,
    });
    await question;
    stop.abort(); // the SDK sends notifications/cancelled for the call
    await assert.rejects(call);
    assert.equal(await cancelDelivered, 202);
    release(APPROVE);
    // The answer goes out after the cancel reached the server: refused.
    assert.equal(await answer, 400);
    assert.deepEqual(t.calls, []);
  } finally {
    await client.close();
    await t.close();
  }
});

Deno.test("MCP 2025-11-25 over HTTP: DELETE ends the session; its requests then get 404, and another caller cannot end or use it", async () => {
  const t = await approvalsSetup();
  const { client, transport } = await legacyClient(t.url, KEYS.alice, { person: says(APPROVE) });
  const post = (key: string) =>
    fetch(t.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": transport.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
  try {
    const stranger = await post(KEYS.bob);
    assert.equal(stranger.status, 404, "another caller's session reads as not there");
    await stranger.body?.cancel();
    const bobDeletes = await fetch(t.url, {
      method: "DELETE",
      headers: { authorization: `Bearer ${KEYS.bob}`, "mcp-session-id": transport.sessionId! },
    });
    assert.equal(bobDeletes.status, 404);
    await bobDeletes.body?.cancel();
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    const after = await post(KEYS.alice);
    assert.equal(after.status, 404);
    assert.match((await after.json()).error.message, /Session not found.*send initialize again/);
    const [{ count }] = await (await sharedPglite()).query<{ count: number }>(
      "select count(*)::int as count from public.mcp_sessions where id = $1",
      [sessionId],
    );
    assert.equal(count, 0);
  } finally {
    await client.close();
    await t.close();
  }
});
