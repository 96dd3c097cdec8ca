/**
 * Row level security pins identity: a signed-in user acting as PostgREST lets
 * them (role `authenticated`, their claims) may update their own rows, but
 * never move a row into another identity's namespace (an API key's `key:…`
 * owner, or another user's `user:<id>`) nor squat an owner key another user
 * will need. Each table a user may update is tried: owner, user_id and the
 * keys rows are found by.
 */
import assert from "node:assert/strict";
import type { SqlTx } from "../../shared/ports.ts";
import { USER_A, USER_B } from "../auth/test_tokens.ts";
import { asUser, migratedSupabasePglite } from "../support/supabase_shape.ts";

/** A row of `table` that user A owns, created the way the app creates it. */
const CREATE_AS_A: Record<string, (tx: SqlTx, key: string) => Promise<unknown>> = {
  working_memory: (tx) =>
    tx.query('select public.put_working_memory($1, \'{"facts":["mine"]}\'::jsonb, 0)', [
      `user:${USER_A}`,
    ]),
  session_summaries: async (tx, key) => {
    // A summary covers a message that exists (erasure wins: 20261129100200_erasure_wins.sql).
    await tx.query(
      `select public.save_chat_turn($1, $2, 'older part', array_fill(0.1::real, array[1536])::vector,
         'm', null, null, 'simple')`,
      [key, `user:${USER_A}`],
    );
    await tx.query(
      `select public.save_session_summary($1, $2, 'older part',
         (select max(seq) from public.chat_messages where session_id = $1), 1, 0)`,
      [key, `user:${USER_A}`],
    );
  },
  refinement_loops: (tx, key) =>
    tx.query(
      `insert into public.refinement_loops (id, owner, loop_type, status, threshold, max_iterations)
       values ($1, $2, 'spec', 'initialized', 85, 5)`,
      [key.slice(0, 8), `user:${USER_A}`],
    ),
  mcp_runs: (tx, key) =>
    tx.query(
      `insert into public.mcp_runs (id, owner, session_id, status, request, checkpoint)
       values ($1::uuid, $2, 's', 'running', '{}', '{}')`,
      [key, `user:${USER_A}`],
    ),
  mcp_tool_approvals: (tx, key) =>
    tx.query(
      `insert into public.mcp_tool_approvals (id, owner, tool, args_digest, expires_at)
       values ($1::uuid, $2, 't', 'd', now() + interval '1 hour')`,
      [key, `user:${USER_A}`],
    ),
  chat_erasures: (tx, key) =>
    tx.query("select public.mark_chat_erasure($1, $2)", [`user:${USER_A}`, key]),
  mcp_sessions: (tx, key) =>
    tx.query(
      `insert into public.mcp_sessions (id, owner, protocol_version, expires_at)
       values ($1, $2, '2025-11-25', now() + interval '1 hour')`,
      [key, `user:${USER_A}`],
    ),
  mcp_session_requests: async (tx, key) => {
    await CREATE_AS_A.mcp_sessions(tx, key);
    await tx.query(
      `insert into public.mcp_session_requests (session_id, request_id, owner, expires_at)
       values ($1, $1, $2, now() + interval '1 minute')`,
      [key, `user:${USER_A}`],
    );
  },
};

/** How each table's row is found again (its key column and the value it was created with). */
const KEY_OF: Record<string, (key: string) => [string, string]> = {
  working_memory: () => ["owner", `user:${USER_A}`],
  session_summaries: (key) => ["session_id", key],
  refinement_loops: (key) => ["id", key.slice(0, 8)],
  mcp_runs: (key) => ["id::text", key],
  mcp_tool_approvals: (key) => ["id::text", key],
  chat_erasures: (key) => ["session_key", key],
  mcp_sessions: (key) => ["id", key],
  mcp_session_requests: (key) => ["request_id", key],
};

/** The identity changes a user must not make to their own row. */
const MOVES: [string, string][] = [
  ["owner", "'key:service-caller'"],
  ["owner", `'user:${USER_B}'`],
  ["user_id", `'${USER_B}'::uuid`],
  ["user_id", "null"],
];

/** Tries `update` as user A; true when the database refused it or it changed no row. */
async function refused(statement: string, params: unknown[]): Promise<boolean> {
  try {
    const changed = await asUser(USER_A, (tx) => tx.query(`${statement} returning 1`, params));
    return changed.length === 0;
  } catch (error) {
    assert.equal((error as { code?: string }).code, "42501", String(error));
    return true;
  }
}

for (const table of Object.keys(CREATE_AS_A)) {
  Deno.test(`RLS pins identity: a user cannot move their own ${table} row to another owner or user`, async () => {
    const { sql } = await migratedSupabasePglite();
    const key = crypto.randomUUID();
    if (table === "working_memory") {
      await sql.query("delete from public.working_memory where owner = $1", [`user:${USER_A}`]);
    }
    await asUser(USER_A, (tx) => CREATE_AS_A[table](tx, key));
    const [column, value] = KEY_OF[table](key);
    for (const [target, to] of MOVES) {
      assert.ok(
        await refused(`update public.${table} set ${target} = ${to} where ${column} = $1`, [value]),
        `user A moved their ${table} row with ${target} = ${to}`,
      );
    }
    // What the server (which reads across owners) sees: the row is where A put it.
    const rows = await sql.query<{ owner: string; user_id: string }>(
      `select owner, user_id::text from public.${table} where ${column} = $1`,
      [value],
    );
    assert.deepEqual(rows, [{ owner: `user:${USER_A}`, user_id: USER_A }]);
  });
}

Deno.test("RLS pins identity: a user's own updates of their rows still work", async () => {
  const key = crypto.randomUUID();
  await asUser(USER_A, async (tx) => {
    await CREATE_AS_A.refinement_loops(tx, key);
    await CREATE_AS_A.mcp_runs(tx, key);
  });
  const changed = await asUser(USER_A, async (tx) => [
    ...await tx.query(
      "update public.refinement_loops set status = 'refine', version = version + 1 where id = $1 returning id",
      [key.slice(0, 8)],
    ),
    ...await tx.query(
      "update public.mcp_runs set status = 'paused', version = version + 1 where id = $1::uuid returning id",
      [key],
    ),
  ]);
  assert.equal(changed.length, 2);
});

Deno.test("RLS pins identity: no user can squat another user's working memory, whose first write then succeeds", async () => {
  const { sql } = await migratedSupabasePglite();
  await sql.query("delete from public.working_memory where owner = any($1)", [[
    `user:${USER_A}`,
    `user:${USER_B}`,
  ]]);
  await asUser(USER_A, (tx) => CREATE_AS_A.working_memory(tx, ""));
  await refused("update public.working_memory set owner = $1 where owner = $2", [
    `user:${USER_B}`,
    `user:${USER_A}`,
  ]);
  const [written] = await asUser(
    USER_B,
    (tx) =>
      tx.query<{ version: number | null }>(
        'select public.put_working_memory($1, \'{"facts":["theirs"]}\'::jsonb, 0) as version',
        [`user:${USER_B}`],
      ),
  );
  assert.equal(written.version, 1);
});

Deno.test("RLS pins identity: a key caller's server-side read never returns a row a user planted", async () => {
  const { sql } = await migratedSupabasePglite();
  const victim = `key:victim-${crypto.randomUUID().slice(0, 8)}`;
  await sql.query("delete from public.working_memory where owner = $1", [`user:${USER_A}`]);
  await asUser(USER_A, (tx) => CREATE_AS_A.working_memory(tx, ""));
  await refused("update public.working_memory set owner = $1 where owner = $2", [
    victim,
    `user:${USER_A}`,
  ]);
  // The server reads as its own role, for the key caller's owner key.
  const [read] = await sql.query<{ document: unknown }>(
    "select document from public.get_working_memory($1)",
    [victim],
  );
  assert.deepEqual(read.document, {});
});
