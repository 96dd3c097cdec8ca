/** The MCP session store suite against the in-memory fake and SQL on PGlite; RLS for two users. */
import assert from "node:assert/strict";
import { newSessionId } from "../../shared/mcp/mcp_sessions.ts";
import { SqlCallerDataStore } from "../../shared/store/sql_caller_data_store.ts";
import { SqlMcpSessionStore } from "../../shared/store/sql_mcp_session_store.ts";
import { USER_A, USER_B, userClaims } from "../auth/test_tokens.ts";
import { MemoryMcpSessionStore } from "../fakes/memory_mcp_session_store.ts";
import { sharedPglite } from "../support/pglite.ts";
import { asAnon, asUser, migratedSupabasePglite } from "../support/supabase_shape.ts";
import { mcpSessionStoreSuite } from "./mcp_session_store_suite.ts";

/** The Supabase-shaped database, its session store, two signed-in users and an hour from now. */
async function twoUsers() {
  const { sql } = await migratedSupabasePglite();
  const store = new SqlMcpSessionStore(sql);
  const alice = { userId: USER_A, owner: `user:${USER_A}`, claims: userClaims(USER_A) };
  const bob = { userId: USER_B, owner: `user:${USER_B}`, claims: userClaims(USER_B) };
  const now = new Date();
  return { sql, store, alice, bob, now, later: new Date(now.getTime() + 3_600_000) };
}

mcpSessionStoreSuite(
  "memory MCP session store",
  () => Promise.resolve(new MemoryMcpSessionStore()),
);
mcpSessionStoreSuite(
  "SQL MCP session store on PGlite",
  async () => new SqlMcpSessionStore(await sharedPglite()),
);

Deno.test("Supabase shape: a user's session and its questions are theirs alone; the answer changes only its status; anon reaches none", async () => {
  const { store, alice, bob, now, later } = await twoUsers();
  const sessionId = newSessionId();
  await store.open(alice, {
    id: sessionId,
    protocolVersion: "2025-11-25",
    capabilities: { elicitation: {} },
    clientInfo: { name: "rls" },
    expiresAt: later,
  });
  const key = { sessionId, requestId: "q-0" };
  await store.ask(alice, { ...key, relatedId: "1", expiresAt: later });
  // Even with Alice's owner key, Bob's identity reaches nothing: RLS, not just the owner filter.
  const bobAsAlice = { ...bob, owner: alice.owner };
  assert.equal(await store.find(bobAsAlice, sessionId, { now, renewTo: later }), undefined);
  const response = { jsonrpc: "2.0", id: "q-0", result: { action: "accept" } };
  assert.equal(await store.answer(bobAsAlice, { ...key, response, now }), false);
  assert.equal(await store.cancel(bobAsAlice, { sessionId, relatedId: "1" }), 0);
  assert.equal(await store.end(bobAsAlice, sessionId), false);
  await assert.rejects(store.ask(bobAsAlice, { sessionId, requestId: "q-1", expiresAt: later }));
  // Bob cannot hang a question of his on Alice's session, even writing the row himself.
  await assert.rejects(
    asUser(USER_B, (tx) =>
      tx.query(
        `insert into public.mcp_session_requests (session_id, request_id, owner, expires_at)
         values ($1, 'planted', $2, now() + interval '1 minute')`,
        [sessionId, `user:${USER_B}`],
      )),
  );
  // Alice may answer her question, never change which session or request it is.
  await assert.rejects(
    asUser(USER_A, (tx) =>
      tx.query(
        "update public.mcp_session_requests set request_id = 'other' where session_id = $1",
        [sessionId],
      )),
    /permission denied/,
  );
  await assert.rejects(
    asUser(
      USER_A,
      (tx) =>
        tx.query("update public.mcp_sessions set client_capabilities = '{}' where id = $1", [
          sessionId,
        ]),
    ),
    /permission denied/,
  );
  const [{ count }] = await asAnon((tx) =>
    tx.query<{ count: number }>("select count(*)::int as count from public.mcp_sessions")
  ).catch(() => [{ count: 0 }]);
  assert.equal(count, 0, "anon reads sessions");
  assert.equal(await store.answer(alice, { ...key, response, now }), true);
  assert.deepEqual(await store.take(alice, key), { kind: "answered", response });
  assert.equal(await store.end(alice, sessionId), true);
  // Only the server's role sweeps.
  await assert.rejects(
    asUser(USER_A, (tx) => tx.query("select public.sweep_mcp_sessions(now(), 10)")),
    /permission denied/,
  );
});

Deno.test("Supabase shape: erasing everything ends the caller's MCP sessions and their questions, nobody else's", async () => {
  const { sql, store, alice, bob, now, later } = await twoUsers();
  const open = async (caller: typeof alice) => {
    const id = newSessionId();
    await store.open(caller, {
      id,
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: {} },
      clientInfo: { name: "erase" },
      expiresAt: later,
    });
    await store.ask(caller, { sessionId: id, requestId: "q-0", relatedId: "7", expiresAt: later });
    return id;
  };
  const [aliceSession, bobSession] = [await open(alice), await open(bob)];
  await new SqlCallerDataStore(sql).deleteEverything(alice);
  assert.equal(await store.find(alice, aliceSession, { now, renewTo: later }), undefined);
  assert.deepEqual(await store.take(alice, { sessionId: aliceSession, requestId: "q-0" }), {
    kind: "gone",
  });
  assert.notEqual(await store.find(bob, bobSession, { now, renewTo: later }), undefined);
  assert.deepEqual(await store.take(bob, { sessionId: bobSession, requestId: "q-0" }), {
    kind: "waiting",
  });
  assert.equal(await store.end(bob, bobSession), true);
});
