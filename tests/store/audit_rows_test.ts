/**
 * Audit rows are the server's to write (shared/store/audit_rows.ts): on the
 * Supabase-shaped database, a signed-in user's turn goes in as the user under
 * row level security and its audit rows as the server, in one statement; the
 * MCP audit log writes as the server too; and nothing a user may execute
 * writes one.
 */
import assert from "node:assert/strict";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import type { AuditEvent, Caller } from "../../shared/ports.ts";
import { SqlAuditLog } from "../../shared/store/sql_audit_log.ts";
import { SqlConversationStore } from "../../shared/store/sql_conversation_store.ts";
import { USER_A, USER_B, userClaims } from "../auth/test_tokens.ts";
import { asUser, migratedSupabasePglite } from "../support/supabase_shape.ts";

const user = (id: string): Caller => ({ userId: id, owner: `user:${id}`, claims: userClaims(id) });
const event = (tool: string, sessionId?: string): AuditEvent => ({
  source: sessionId ? "loop" : "mcp",
  tool,
  input: { asked: tool },
  output: "done",
  success: true,
  durationMs: 1,
  sessionId,
});

function turn(caller: Caller, sessionId: string, runId?: string) {
  return {
    caller,
    sessionId,
    userMessage: {
      content: "remember the blue door",
      embedding: hashingVector("remember the blue door"),
      embeddingModel: "hashing-v1",
    },
    assistantMessage: { content: "noted" },
    events: [event("remember", sessionId), event("finalize_summary", sessionId)],
    ...(runId ? { runId } : {}),
  };
}

Deno.test("a signed-in user's turn: the messages as the user under row level security, the audit rows by the server", async () => {
  const { sql } = await migratedSupabasePglite();
  const store = new SqlConversationStore(sql);
  const session = `audit-${crypto.randomUUID()}`;
  await store.saveTurn(turn(user(USER_A), session));
  const messages = await sql.query<{ owner: string; user_id: string; role: string }>(
    "select owner, user_id::text, role from public.chat_messages where session_id = $1 order by seq",
    [session],
  );
  assert.deepEqual(messages, [
    { owner: `user:${USER_A}`, user_id: USER_A, role: "user" },
    { owner: `user:${USER_A}`, user_id: USER_A, role: "assistant" },
  ]);
  const rows = await asUser(
    USER_A,
    (tx) =>
      tx.query<{ tool: string; caller: string; user_id: string; source: string }>(
        "select tool, caller, user_id::text, source from public.mcp_events where session_id = $1 order by id",
        [session],
      ),
  );
  assert.deepEqual(
    rows,
    ["remember", "finalize_summary"].map((tool) => ({
      tool,
      caller: `user:${USER_A}`,
      user_id: USER_A,
      source: "loop",
    })),
  );
  // The statement left no role or claims behind on the connection.
  const [after] = await sql.query<{ role: string; claims: string | null }>(
    "select current_setting('role') as role, nullif(current_setting('request.jwt.claims', true), '') as claims",
  );
  assert.deepEqual(after, { role: "none", claims: null });
});

Deno.test("a run's turn stored twice keeps one copy of its messages and of its audit rows", async () => {
  const { sql } = await migratedSupabasePglite();
  const store = new SqlConversationStore(sql);
  const session = `audit-${crypto.randomUUID()}`;
  const runId = crypto.randomUUID();
  for (const caller of [user(USER_B), { userId: null, owner: `key:${crypto.randomUUID()}` }]) {
    await store.saveTurn(turn(caller, session, runId));
    await store.saveTurn(turn(caller, session, runId));
  }
  const [{ messages, audit }] = await sql.query<{ messages: number; audit: number }>(
    `select (select count(*)::int from public.chat_messages where session_id = $1) as messages,
            (select count(*)::int from public.mcp_events where session_id = $1) as audit`,
    [session],
  );
  // Two callers, each with one turn (2 messages, 2 audit rows) under the same run id.
  assert.deepEqual({ messages, audit }, { messages: 4, audit: 4 });
});

Deno.test("the MCP audit log writes a signed-in user's rows as the server, with the user's identity", async () => {
  const { sql } = await migratedSupabasePglite();
  const log = new SqlAuditLog(sql, { maxDelayMs: 0 });
  const tool = `probe_${crypto.randomUUID().slice(0, 8)}`;
  await log.record(user(USER_B), [event(tool)]);
  const rows = await asUser(
    USER_B,
    (tx) =>
      tx.query<{ caller: string; user_id: string; source: string }>(
        "select caller, user_id::text, source from public.mcp_events where tool = $1",
        [tool],
      ),
  );
  assert.deepEqual(rows, [{ caller: `user:${USER_B}`, user_id: USER_B, source: "mcp" }]);
  assert.deepEqual(
    await asUser(
      USER_A,
      (tx) => tx.query("select id from public.mcp_events where tool = $1", [tool]),
    ),
    [],
  );
});
