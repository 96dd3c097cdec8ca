import assert from "node:assert/strict";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import { PgliteSql } from "../../shared/adapters/pglite/pglite_sql.ts";
import type { SqlQueryable } from "../../shared/ports.ts";
import {
  applyMigrations,
  assertSchema,
  readMigrations,
  SCHEMA_FUNCTIONS,
  SCHEMA_TABLES,
} from "../../shared/store/migrations.ts";
import { saveTurnStatement } from "../../shared/store/sql_conversation_store.ts";
import { toVectorLiteral } from "../../shared/store/sql_values.ts";
import { sharedPglite } from "../support/pglite.ts";

async function schemaSnapshot(sql: SqlQueryable) {
  return {
    columns: await sql.query(
      `select table_name, column_name, data_type, column_default from information_schema.columns
       where table_schema = 'public' order by 1, 2`,
    ),
    indexes: await sql.query(
      "select indexname, indexdef from pg_indexes where schemaname = 'public' order by 1",
    ),
    policies: await sql.query(
      "select tablename, policyname, cmd, qual, with_check from pg_policies order by 1, 2",
    ),
    functions: await sql.query(
      `select p.proname, pg_get_functiondef(p.oid) as def from pg_proc p
       join pg_namespace n on n.oid = p.pronamespace
       where n.nspname in ('public', 'auth') and p.prokind = 'f' order by 1, 2`,
    ),
    migrations: await sql.query(
      "select version from supabase_migrations.schema_migrations order by 1",
    ),
  };
}

Deno.test("migrations applied twice change nothing, and re-running their SQL is harmless", async () => {
  const sql = await sharedPglite();
  const before = await schemaSnapshot(sql);
  assert.deepEqual(await applyMigrations(sql), [], "the runner applies nothing the second time");
  for (const migration of await readMigrations()) await sql.exec(migration.sql);
  assert.deepEqual(await schemaSnapshot(sql), before);
  assert.deepEqual(
    before.migrations.map((row) => (row as { version: string }).version),
    (await readMigrations()).map((m) => m.version),
  );
});

Deno.test("the migrations create an HNSW cosine index and enable RLS on every table", async () => {
  const sql = await sharedPglite();
  const [hnsw] = await sql.query<{ indexdef: string }>(
    "select indexdef from pg_indexes where indexname = 'chat_messages_embedding_hnsw_idx'",
  );
  assert.match(hnsw.indexdef, /USING hnsw \(embedding vector_cosine_ops\)/);
  // Without the offline embedders' vectors, which recall does not search by default.
  assert.match(
    hnsw.indexdef,
    /WHERE \(embedding_model <> ALL \(ARRAY\['hashing-v1'::text, 'word-vectors-sif-v1'::text, 'use-lite-hashing-v1'::text\]\)\)/,
  );
  // Full text: the user's messages, with each insert updating the index itself.
  const [fts] = await sql.query<{ indexdef: string }>(
    "select indexdef from pg_indexes where indexname = 'chat_messages_fts_idx'",
  );
  assert.match(
    fts.indexdef,
    /USING gin \(fts\) WITH \(fastupdate='?off'?\) WHERE \(role = 'user'::text\)/,
  );
  // MCP calls' audit rows have no session and stay out of the session index.
  const [session] = await sql.query<{ indexdef: string }>(
    "select indexdef from pg_indexes where indexname = 'mcp_events_session_idx'",
  );
  assert.match(session.indexdef, /\(session_id, created_at\) WHERE \(session_id IS NOT NULL\)/);
  const tables = await sql.query<{ relname: string; relrowsecurity: boolean }>(
    `select c.relname, c.relrowsecurity from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind = 'r' order by 1`,
  );
  assert.deepEqual(tables.map((t) => t.relname), [
    "caller_quota",
    "chat_erasures",
    "chat_messages",
    "mcp_events",
    "mcp_run_events",
    "mcp_runs",
    "mcp_session_requests",
    "mcp_sessions",
    "mcp_tool_approvals",
    "refinement_loops",
    "session_summaries",
    "working_memory",
  ]);
  assert.ok(tables.every((t) => t.relrowsecurity), JSON.stringify(tables));
});

Deno.test("the prelude provides auth.uid() from request.jwt.claims and the Supabase roles", async () => {
  const sql = await sharedPglite();
  const id = crypto.randomUUID();
  const [row] = await sql.transaction((tx) =>
    tx.query<{ uid: string; role: string }>(
      "select set_config('request.jwt.claims', $1, true), auth.uid()::text as uid, current_user as role",
      [JSON.stringify({ sub: id })],
    )
  );
  assert.equal(row.uid, id);
  const roles = await sql.query<{ rolname: string }>(
    "select rolname from pg_roles where rolname in ('anon', 'authenticated', 'service_role') order by 1",
  );
  assert.deepEqual(roles.map((r) => r.rolname), ["anon", "authenticated", "service_role"]);
});

Deno.test("as an authenticated user, plain SQL sees only that user's rows (RLS)", async () => {
  const sql = await sharedPglite();
  const [alice, bob] = [crypto.randomUUID(), crypto.randomUUID()];
  const session = crypto.randomUUID();
  await sql.query(
    `insert into chat_messages (session_id, user_id, role, content) values ($1, $2, 'user', 'a'), ($1, $3, 'user', 'b')`,
    [session, alice, bob],
  );
  const seen = await sql.transaction(async (tx) => {
    await tx.query(
      "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
      [JSON.stringify({ sub: alice, role: "authenticated" })],
    );
    return await tx.query<{ content: string }>(
      "select content from chat_messages where session_id = $1",
      [session],
    );
  });
  assert.deepEqual(seen.map((r) => r.content), ["a"]);
  await assert.rejects(
    sql.transaction(async (tx) => {
      await tx.query(
        "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
        [JSON.stringify({ sub: alice, role: "authenticated" })],
      );
      await tx.query(
        `insert into chat_messages (session_id, user_id, role, content) values ($1, $2, 'user', 'x')`,
        [
          session,
          bob,
        ],
      );
    }),
    /row-level security/,
  );
});

Deno.test("a turn is all or nothing: a bad audit row leaves no message behind", async () => {
  const sql = await sharedPglite();
  const session = crypto.randomUUID();
  // The store's one statement: the messages, then the audit rows (one has no tool).
  await assert.rejects(
    sql.query(saveTurnStatement({ asUser: false }), [
      null,
      "anonymous",
      "loop",
      session,
      JSON.stringify([{ tool: null, input: {}, output: {}, success: true, duration_ms: 1 }]),
      "hello",
      toVectorLiteral(hashingVector("hello")),
      "hashing-v1",
      "reply",
      null,
      "simple",
    ]),
    /null value in column "tool"/,
  );
  const [{ count }] = await sql.query<{ count: number }>(
    "select count(*)::int as count from chat_messages where session_id = $1",
    [session],
  );
  assert.equal(count, 0);
});

Deno.test("a filtered search through the HNSW index still returns k rows when k exist", async () => {
  const sql = await sharedPglite();
  // 20 rows of a rare model among 220 of a common one; only the HNSW index can serve the
  // query (no btree on embedding_model, sequential scans off), so without pgvector's
  // iterative scan the filter would leave about 40 × 20/240 ≈ 3 of the 10 rows wanted.
  const [rare, common] = [`rare-${crypto.randomUUID()}`, `common-${crypto.randomUUID()}`];
  const rows = Array.from({ length: 240 }, (_, i) => ({
    model: i % 12 === 0 ? rare : common,
    text: `note ${i} about subject ${i % 9} and area ${i % 5}`,
  }));
  const values = rows.map((_, i) =>
    `('filter-session', 'user', $${i * 3 + 1}, $${i * 3 + 2}::vector, $${i * 3 + 3})`
  );
  await sql.query(
    `insert into chat_messages (session_id, role, content, embedding, embedding_model)
     values ${values.join(", ")}`,
    rows.flatMap((r) => [r.text, toVectorLiteral(hashingVector(r.text)), r.model]),
  );
  const query = toVectorLiteral(hashingVector("subject 4 area 2"));
  const matches = await sql.transaction(async (tx) => {
    await tx.query("select set_config('enable_seqscan', 'off', true)");
    const plan = await tx.query<{ "QUERY PLAN": string }>(
      `explain select id from chat_messages where embedding_model = $2
       order by embedding <=> $1::vector limit 10`,
      [query, rare],
    );
    assert.match(plan.map((p) => p["QUERY PLAN"]).join("\n"), /chat_messages_embedding_hnsw_idx/);
    return await tx.query("select * from match_chat_messages($1::vector, 10, -1, $2)", [
      query,
      rare,
    ]);
  });
  assert.equal(matches.length, 10);
});

Deno.test("data survives closing and reopening the data dir", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "mcp-loop-pglite-" });
  try {
    const first = await PgliteSql.open({ dataDir });
    await applyMigrations(first);
    await first.query(
      "insert into chat_messages (session_id, role, content) values ('persist', 'user', 'still here')",
    );
    await first.close();
    const second = await PgliteSql.open({ dataDir });
    assert.deepEqual(await applyMigrations(second), []);
    const rows = await second.query<{ content: string }>(
      "select content from chat_messages where session_id = 'persist'",
    );
    assert.deepEqual(rows.map((r) => r.content), ["still here"]);
    await second.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("audit rows cannot be forged: a user inserts none, and only the server writes them, for a verified identity", async () => {
  const sql = await sharedPglite();
  const user = crypto.randomUUID();
  const session = crypto.randomUUID();
  const asUser = <T>(fn: (tx: import("../../shared/ports.ts").SqlTx) => Promise<T>) =>
    sql.transaction(async (tx) => {
      await tx.query(
        "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
        [JSON.stringify({ sub: user, role: "authenticated" })],
      );
      return await fn(tx);
    });
  await assert.rejects(
    asUser((tx) =>
      tx.query(
        "insert into mcp_events (caller, source, tool, success, duration_ms) values ('x', 'mcp', 't', true, 1)",
      )
    ),
    /permission denied/,
  );
  await assert.rejects(
    asUser((tx) =>
      tx.query("select write_mcp_events($1::uuid, $2, 'mcp', null, '[]')", [user, `user:${user}`])
    ),
    /permission denied for function write_mcp_events/,
  );
  // A user's turn (owner key passed: someone else's) is stored under their own key, with no audit row.
  await asUser((tx) =>
    tx.query(
      "select save_chat_turn($1, 'key:someone-else', 'hi', $2::vector, 'hashing-v1', null)",
      [session, toVectorLiteral(hashingVector("hi"))],
    )
  );
  const [message] = await sql.query<{ owner: string }>(
    "select owner from chat_messages where session_id = $1",
    [session],
  );
  assert.equal(message.owner, `user:${user}`);
  assert.deepEqual(
    await sql.query("select id from mcp_events where session_id = $1", [session]),
    [],
  );
  // The server's rows: the identity it names, all of it or none.
  const requestId = crypto.randomUUID();
  const rows = JSON.stringify(["a", "b"].map((tool) => ({
    request_id: requestId,
    tool,
    input: {},
    success: true,
    duration_ms: 1,
  })));
  for (const [userId, owner] of [[user, "key:someone-else"], [null, `user:${user}`]]) {
    await assert.rejects(
      sql.query("select write_mcp_events($1::uuid, $2, 'mcp', null, $3::jsonb)", [
        userId,
        owner,
        rows,
      ]),
      /must name that caller's own user id/,
    );
  }
  await sql.query("select write_mcp_events($1::uuid, $2, 'mcp', null, $3::jsonb)", [
    user,
    `user:${user}`,
    rows,
  ]);
  const mcpRows = await sql.query<{ caller: string; user_id: string }>(
    "select caller, user_id::text from mcp_events where request_id = $1",
    [requestId],
  );
  assert.deepEqual(mcpRows, [1, 2].map(() => ({ caller: `user:${user}`, user_id: user })));
});

Deno.test("the schema check at start names exactly the tables and functions the migrations create", async () => {
  const sql = await sharedPglite();
  await assertSchema(sql);
  const tables = await sql.query<{ name: string }>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind = 'r' order by 1`,
  );
  assert.deepEqual(tables.map((t) => t.name), [...SCHEMA_TABLES]);
  const functions = await sql.query<{ name: string }>(
    `select distinct p.proname as name from pg_proc p
     where p.pronamespace = 'public'::regnamespace and p.prokind = 'f'
       and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
     order by 1`,
  );
  assert.deepEqual(functions.map((f) => f.name), [...SCHEMA_FUNCTIONS]);
});
