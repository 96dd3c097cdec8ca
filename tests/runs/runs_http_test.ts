/**
 * The run routes over real HTTP, on PGlite, with two callers (API keys): a
 * write waits for approval (MCP_LOOP_APPROVAL=writes makes the built-in
 * `initialize_refinement_loop` one), its owner approves it once, the other
 * caller gets 404 everywhere, and a client that leaves mid-stream comes back
 * for the rest with Last-Event-ID.
 */
import assert from "node:assert/strict";
import { createParser } from "eventsource-parser";
import { mcpApp, serve } from "../support/mcp_fixture.ts";

const KEYS = "alice=alice-key-0123456789, bob=bob-key-0123456789ab";
const ALICE = { authorization: "Bearer alice-key-0123456789" };
const BOB = { authorization: "Bearer bob-key-0123456789ab" };

interface Sse {
  id?: string;
  event?: string;
  data: unknown;
}

/** Reads a whole SSE body into events. */
async function events(res: Response): Promise<Sse[]> {
  const seen: Sse[] = [];
  const parser = createParser({
    onEvent: (e) => seen.push({ id: e.id, event: e.event, data: JSON.parse(e.data) }),
  });
  parser.feed(await res.text());
  return seen;
}

async function withServer(fn: (base: string) => Promise<void>, env: Record<string, string> = {}) {
  const app = await mcpApp({ MCP_LOOP_API_KEYS: KEYS, MCP_LOOP_APPROVAL: "writes", ...env });
  const server = serve(app);
  try {
    await fn(`${server.base}/mcp-loop`);
  } finally {
    await server.close();
    await app.close();
  }
}

function post(url: string, body: unknown, headers: Record<string, string>) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const START = (sessionId: string) => ({
  mode: "general",
  sessionId,
  messages: [{ role: "user", content: "Start a spec refinement loop" }],
});

async function loopCount(base: string, headers: Record<string, string>): Promise<number> {
  const res = await post(`${base}/mcp`, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "list_active_loops", arguments: {} },
  }, { ...headers, accept: "application/json, text/event-stream" });
  const body = await res.json();
  return body.result.structuredContent.loops.length;
}

Deno.test("over HTTP: a write waits for approval, its owner approves it once, the other caller sees nothing", () =>
  withServer(async (base) => {
    const before = await loopCount(base, ALICE);
    const started = await post(base, START(`s-${crypto.randomUUID()}`), ALICE);
    assert.equal(started.status, 200);
    const { data } = await started.json();
    assert.equal(data.stopReason, "approval_required");
    assert.equal(data.pendingApprovals[0].tool, "initialize_refinement_loop");
    assert.deepEqual(data.pendingApprovals[0].args, { loop_type: "spec" });
    const run = `${base}/runs/${data.runId}`;
    const [approval] = data.pendingApprovals;

    // Bob: not found, whatever he tries.
    assert.equal((await fetch(run, { headers: BOB })).status, 404);
    assert.equal((await fetch(`${run}/events`, { headers: BOB })).status, 404);
    const bobApproves = await post(`${run}/approvals`, {
      approvals: [{ id: approval.id, approved: true }],
    }, BOB);
    assert.equal(bobApproves.status, 404);
    assert.equal((await bobApproves.json()).error.code, "RUN_NOT_FOUND");
    assert.equal((await post(`${run}/cancel`, {}, BOB)).status, 404);

    const { success, data: view } = await (await fetch(run, { headers: ALICE })).json();
    assert.equal(success, true);
    assert.deepEqual([view.status, view.pendingApprovals.length], ["waiting_approval", 1]);
    assert.equal(await loopCount(base, ALICE), before, "nothing created before the approval");

    const approved = await post(`${run}/approvals`, {
      approvals: [{ id: approval.id, approved: true }],
    }, { ...ALICE, accept: "text/event-stream" });
    const streamed = await events(approved);
    assert.ok(streamed.some((e) => e.event === "step_end"));
    const result = streamed.at(-1)!;
    assert.equal(result.event, "result");
    const done = (result.data as { data: { stopReason: string; runId: string } }).data;
    assert.equal(done.runId, data.runId);
    assert.equal(done.stopReason, "finalized");
    assert.equal(await loopCount(base, ALICE), before + 1, "the approved write ran once");

    const again = await post(`${run}/approvals`, {
      approvals: [{ id: approval.id, approved: true }],
    }, ALICE);
    assert.equal(again.status, 409);
    assert.equal(await loopCount(base, ALICE), before + 1);
    assert.equal((await (await fetch(run, { headers: ALICE })).json()).data.status, "completed");
  }));

Deno.test("over HTTP: a denied write fails with APPROVAL_DENIED and nothing is created", () =>
  withServer(async (base) => {
    const before = await loopCount(base, ALICE);
    const { data } = await (await post(base, START(`s-${crypto.randomUUID()}`), ALICE)).json();
    const res = await post(`${base}/runs/${data.runId}/approvals`, {
      approvals: [{ id: data.pendingApprovals[0].id, approved: false, reason: "not now" }],
    }, ALICE);
    assert.equal(res.status, 200);
    const { data: done } = await res.json();
    assert.equal(done.intermediateResults[0].code, "APPROVAL_DENIED");
    assert.match(done.intermediateResults[0].error, /not now/);
    assert.equal(await loopCount(base, ALICE), before);
  }));

Deno.test("over HTTP: the events of a run, with Last-Event-ID only the later ones; a client that left loses nothing", () =>
  withServer(async (base) => {
    const { data } = await (await post(base, START(`s-${crypto.randomUUID()}`), ALICE)).json();
    const url = `${base}/runs/${data.runId}/events`;
    const all = await events(await fetch(url, { headers: ALICE }));
    assert.deepEqual(all.map((e) => Number(e.id)), all.map((_, i) => i + 1));
    assert.equal(all[0].event, "run");
    assert.deepEqual(all.slice(-2).map((e) => e.event), ["approval_required", "result"]);
    // Replayed as answered live: the embedding's model and size, its vector only when asked for.
    const embeddedOf = (e: Sse) =>
      (e.data as { data: { context: { embeddedMessage: unknown } } }).data.context.embeddedMessage;
    assert.deepEqual(embeddedOf(all.at(-1)!), { model: "hashing-v1", dimensions: 1536 });
    const withVector = await events(
      await fetch(`${url}?includeEmbedding=true`, { headers: ALICE }),
    );
    assert.equal((embeddedOf(withVector.at(-1)!) as number[]).length, 1536);
    const later = await events(await fetch(url, { headers: { ...ALICE, "last-event-id": "3" } }));
    assert.deepEqual(later.map((e) => Number(e.id)), all.slice(3).map((e) => Number(e.id)));

    // A client streams the approval's continuation and leaves after the first event.
    const approval = data.pendingApprovals[0];
    const controller = new AbortController();
    const res = await fetch(`${base}/runs/${data.runId}/approvals`, {
      method: "POST",
      headers: { ...ALICE, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ approvals: [{ id: approval.id, approved: true }] }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const lastId = Number(/^id: (\d+)$/m.exec(first)![1]);
    controller.abort();
    await reader.cancel().catch(() => {});
    // The run goes on without it; coming back with its last id, the client gets the rest.
    let rest: Sse[] = [];
    for (let attempt = 0; attempt < 50; attempt++) {
      rest = await events(
        await fetch(url, { headers: { ...ALICE, "last-event-id": String(lastId) } }),
      );
      if (rest.at(-1)?.event === "result" && Number(rest.at(-1)!.id) > all.length) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(Number(rest[0].id), lastId + 1);
    assert.equal(rest.at(-1)?.event, "result");
    const done = (rest.at(-1)!.data as { data: { stopReason: string } }).data;
    assert.equal(done.stopReason, "finalized");
  }));
