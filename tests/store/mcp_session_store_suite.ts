/** The MCP session store suite, run against every implementation (the fake and SQL on PGlite). */
import assert from "node:assert/strict";
import type { McpSessionStore } from "../../shared/store/mcp_session_port.ts";
import { newSessionId } from "../../shared/mcp/mcp_sessions.ts";
import type { Caller } from "../../shared/ports.ts";

const HOUR = 3_600_000;

function keyCaller(): Caller {
  return { userId: null, owner: `key:sessions-${crypto.randomUUID().slice(0, 8)}` };
}

/** Registers the suite's tests for the store `make` returns. */
export function mcpSessionStoreSuite(name: string, make: () => Promise<McpSessionStore>): void {
  const now = new Date();
  const at = (ms: number) => new Date(now.getTime() + ms);

  async function opened(store: McpSessionStore, caller: Caller, expiresIn = HOUR) {
    const id = newSessionId();
    await store.open(caller, {
      id,
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: "suite", version: "1" },
      expiresAt: at(expiresIn),
    });
    return id;
  }

  Deno.test(`${name}: a session is found by its caller only, until it lapses, and renewed past half its life`, async () => {
    const store = await make();
    const alice = keyCaller();
    const id = await opened(store, alice);
    const found = await store.find(alice, id, { now, renewTo: at(HOUR) });
    assert.deepEqual(found && { ...found, expiresAt: found.expiresAt.getTime() }, {
      id,
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: "suite", version: "1" },
      expiresAt: at(HOUR).getTime(),
    });
    assert.equal(await store.find(keyCaller(), id, { now, renewTo: at(HOUR) }), undefined);
    assert.equal(await store.find(alice, id, { now: at(HOUR), renewTo: at(2 * HOUR) }), undefined);
    // Less than half of a 2 h life left: renewed to the new end.
    const renewed = await store.find(alice, id, { now: at(HOUR / 4), renewTo: at(3 * HOUR) });
    assert.equal(renewed?.expiresAt.getTime(), at(3 * HOUR).getTime());
    const kept = await store.find(alice, id, { now: at(HOUR / 4), renewTo: at(4 * HOUR) });
    assert.equal(kept?.expiresAt.getTime(), at(3 * HOUR).getTime(), "not renewed before half-way");
    assert.equal(
      await store.find(alice, "no-such-session-id-xyz", { now, renewTo: at(HOUR) }),
      undefined,
    );
  });

  Deno.test(`${name}: an answer is recorded once, taken once, and only by its caller`, async () => {
    const store = await make();
    const alice = keyCaller();
    const sessionId = await opened(store, alice);
    const key = { sessionId, requestId: "abc-0" };
    await store.ask(alice, { ...key, relatedId: "7", expiresAt: at(60_000) });
    assert.deepEqual(await store.take(alice, key), { kind: "waiting" });
    const response = { jsonrpc: "2.0", id: "abc-0", result: { action: "accept" } };
    assert.equal(await store.answer(keyCaller(), { ...key, response, now }), false);
    assert.equal(await store.answer(alice, { ...key, response, now }), true);
    assert.equal(await store.answer(alice, { ...key, response, now }), false, "answered once");
    assert.deepEqual(await store.take(keyCaller(), key), { kind: "gone" });
    assert.deepEqual(await store.take(alice, key), { kind: "answered", response });
    assert.deepEqual(await store.take(alice, key), { kind: "gone" }, "taken once");
    assert.equal(await store.answer(alice, { ...key, response, now }), false);
  });

  Deno.test(`${name}: a withdrawn or lapsed request takes no answer, and an answer before the withdrawal is kept`, async () => {
    const store = await make();
    const alice = keyCaller();
    const sessionId = await opened(store, alice);
    const withdrawn = { sessionId, requestId: "w-0" };
    await store.ask(alice, { ...withdrawn, expiresAt: at(60_000) });
    assert.deepEqual(await store.take(alice, { ...withdrawn, withdraw: true }), {
      kind: "waiting",
    });
    const response = { jsonrpc: "2.0", id: "w-0", result: {} };
    assert.equal(await store.answer(alice, { ...withdrawn, response, now }), false);
    const lapsed = { sessionId, requestId: "l-0" };
    await store.ask(alice, { ...lapsed, expiresAt: at(60_000) });
    assert.equal(await store.answer(alice, { ...lapsed, response, now: at(60_000) }), false);
    const raced = { sessionId, requestId: "r-0" };
    await store.ask(alice, { ...raced, expiresAt: at(60_000) });
    assert.equal(await store.answer(alice, { ...raced, response, now }), true);
    assert.deepEqual(await store.take(alice, { ...raced, withdraw: true }), {
      kind: "answered",
      response,
    });
  });

  Deno.test(`${name}: a cancel reaches the requests waiting for that client request only`, async () => {
    const store = await make();
    const alice = keyCaller();
    const sessionId = await opened(store, alice);
    await store.ask(alice, { sessionId, requestId: "c-0", relatedId: "1", expiresAt: at(60_000) });
    await store.ask(alice, {
      sessionId,
      requestId: "c-1",
      relatedId: '"1"',
      expiresAt: at(60_000),
    });
    assert.equal(await store.cancel(keyCaller(), { sessionId, relatedId: "1" }), 0);
    assert.equal(await store.cancel(alice, { sessionId, relatedId: "1" }), 1);
    assert.equal(await store.cancel(alice, { sessionId, relatedId: "1" }), 0, "cancelled once");
    assert.deepEqual(await store.take(alice, { sessionId, requestId: "c-0" }), {
      kind: "cancelled",
    });
    assert.deepEqual(await store.take(alice, { sessionId, requestId: "c-1" }), { kind: "waiting" });
    const response = { jsonrpc: "2.0", id: "c-0", result: {} };
    assert.equal(await store.answer(alice, { sessionId, requestId: "c-0", response, now }), false);
  });

  Deno.test(`${name}: ending a session removes it and its requests; only its caller can, once`, async () => {
    const store = await make();
    const alice = keyCaller();
    const sessionId = await opened(store, alice);
    await store.ask(alice, { sessionId, requestId: "e-0", expiresAt: at(60_000) });
    assert.equal(await store.end(keyCaller(), sessionId), false);
    assert.equal(await store.end(alice, sessionId), true);
    assert.equal(await store.end(alice, sessionId), false);
    assert.equal(await store.find(alice, sessionId, { now, renewTo: at(HOUR) }), undefined);
    assert.deepEqual(await store.take(alice, { sessionId, requestId: "e-0" }), { kind: "gone" });
    await assert.rejects(
      store.ask(alice, { sessionId, requestId: "e-1", expiresAt: at(60_000) }),
      "no question on an ended session",
    );
  });

  Deno.test(`${name}: the sweep removes lapsed sessions and requests, not live ones`, async () => {
    const store = await make();
    const alice = keyCaller();
    const lapsed = await opened(store, alice, 1_000);
    const live = await opened(store, alice, HOUR);
    await store.ask(alice, { sessionId: live, requestId: "s-0", expiresAt: at(1_000) });
    await store.ask(alice, { sessionId: live, requestId: "s-1", expiresAt: at(HOUR) });
    assert.ok(await store.sweep(at(2_000), 1_000) >= 1);
    const find = (id: string) => store.find(alice, id, { now, renewTo: at(HOUR) });
    assert.equal(await find(lapsed), undefined);
    assert.equal((await find(live))?.id, live);
    assert.deepEqual(await store.take(alice, { sessionId: live, requestId: "s-0" }), {
      kind: "gone",
    });
    assert.deepEqual(await store.take(alice, { sessionId: live, requestId: "s-1" }), {
      kind: "waiting",
    });
  });
}
