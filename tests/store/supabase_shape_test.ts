/**
 * The migrations and row level security on a database shaped like Supabase's
 * (tests/support/supabase_shape.ts): its roles, `auth.uid()` as Supabase Auth
 * defines it, pgvector in `extensions`, and its default privileges, which
 * grant everything created in `public` to anon and authenticated. Two signed-in
 * users act as PostgREST makes them act (role `authenticated`, their claims in
 * `request.jwt.claims`, one transaction) and try to reach each other's rows
 * through every SQL function the migrations define and through the tables.
 */
import assert from "node:assert/strict";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import type { Caller } from "../../shared/ports.ts";
import { LoopNotFoundError } from "../../shared/errors.ts";
import { SCHEMA_FUNCTIONS, SERVER_ONLY_FUNCTIONS } from "../../shared/store/migrations.ts";
import { SqlRefinementStore } from "../../shared/store/sql_refinement_store.ts";
import { toVectorLiteral } from "../../shared/store/sql_values.ts";
import { USER_A, USER_B, userClaims } from "../auth/test_tokens.ts";
import {
  asAnon,
  asUser,
  CHAT_MODEL,
  migratedSupabasePglite,
  serverWritesAudit,
  twoUsersTalk,
} from "../support/supabase_shape.ts";

const vector = (text: string) => toVectorLiteral(hashingVector(text));

Deno.test("Supabase shape: the migrations apply unchanged, with vector in extensions and auth.uid() as Supabase defines it", async () => {
  const { sql } = await migratedSupabasePglite();
  const [row] = await sql.query<{ extension: string; column_type: string }>(
    `select e.extnamespace::regnamespace::text as extension,
            t.typnamespace::regnamespace::text || '.' || format_type(a.atttypid, a.atttypmod) as column_type
     from pg_extension e, pg_attribute a join pg_type t on t.oid = a.atttypid
     where e.extname = 'vector' and a.attrelid = 'public.chat_messages'::regclass
       and a.attname = 'embedding'`,
  );
  assert.deepEqual(row, { extension: "extensions", column_type: "extensions.vector(1536)" });
  const [uid] = await asUser(USER_A, (tx) => tx.query<{ uid: string }>("select auth.uid() as uid"));
  assert.equal(uid.uid, USER_A);
});

Deno.test("Supabase shape: two users on one session id never see each other's messages through save, load, match or list", async () => {
  const session = await twoUsersTalk();
  const query = vector("private note about the launch");
  const seenBy = (user: string, other: string) =>
    asUser(user, async (tx) => ({
      // Each call passes the other user's owner key and id: the functions and RLS ignore them.
      loaded: await tx.query<{ content: string }>(
        "select content from public.load_chat_context($1, $2, $3::vector, $4, 10, 10, -1, 'session')",
        [session, `user:${other}`, query, CHAT_MODEL],
      ),
      loadedAcrossSessions: await tx.query<{ content: string }>(
        "select content from public.load_chat_context($1, $2, $3::vector, $4, 0, 50, -1, 'user')",
        [session, `user:${other}`, query, CHAT_MODEL],
      ),
      matched: await tx.query<{ content: string }>(
        "select content from public.match_chat_messages($1::vector, 50, -1, $2)",
        [query, CHAT_MODEL],
      ),
      matchedAsOther: await tx.query<{ content: string }>(
        "select content from public.match_chat_messages($1::vector, 50, -1, $2, $3, $4::uuid, '{}', $5)",
        [query, CHAT_MODEL, session, other, `user:${other}`],
      ),
      listed: await tx.query<{ content: string }>(
        "select content from public.list_chat_messages($1, $2)",
        [session, `user:${other}`],
      ),
      sessions: await tx.query<{ session_id: string }>(
        "select session_id from public.list_chat_sessions($1, 'shared-')",
        [`user:${other}`],
      ),
      owner: await tx.query<{ owner: string }>("select public.chat_owner($1) as owner", [
        `user:${other}`,
      ]),
      table: await tx.query<{ content: string }>(
        "select content from public.chat_messages where session_id = $1",
        [session],
      ),
    }));
  for (
    const [user, other, mine, theirs] of [[USER_A, USER_B, "alpha", "bravo"], [
      USER_B,
      USER_A,
      "bravo",
      "alpha",
    ]]
  ) {
    const seen = await seenBy(user, other);
    assert.deepEqual(seen.owner, [{ owner: `user:${user}` }]);
    assert.deepEqual(seen.matchedAsOther, []);
    for (const [name, rows] of Object.entries(seen)) {
      const text = JSON.stringify(rows);
      assert.ok(
        !text.includes(theirs),
        `${user} sees the other user's rows through ${name}: ${text}`,
      );
    }
    assert.ok(JSON.stringify(seen.loaded).includes(mine), "the user's own turn is there");
    assert.ok(JSON.stringify(seen.listed).includes(`${mine} reply`));
    assert.ok(seen.sessions.some((row) => row.session_id === session));
  }
});

Deno.test("Supabase shape: a user writes no audit row, the server's carry the verified identity, and each user reads only theirs", async () => {
  const session = await twoUsersTalk();
  const requestId = crypto.randomUUID();
  const { sql } = await migratedSupabasePglite();
  const forged = JSON.stringify([{
    request_id: requestId,
    tool: "forget_session",
    input: { session: "anything" },
    success: true,
    duration_ms: 1,
  }]);
  // B tries every way PostgREST would let a signed-in user ask for an audit row.
  for (
    const [statement, params] of [
      ["select public.write_mcp_events($1::uuid, $2, 'mcp', null, $3::jsonb)", [
        USER_B,
        `user:${USER_B}`,
        forged,
      ]],
      ["select public.record_mcp_events($1, 'mcp', null, $2::jsonb)", [`user:${USER_B}`, forged]],
      [
        "select public.save_chat_turn(p_session_id => $1, p_caller => $2, p_user_content => 'x', p_embedding => null, p_embedding_model => null, p_events => $3::jsonb)",
        [session, `user:${USER_B}`, forged],
      ],
    ] as const
  ) {
    await assert.rejects(
      asUser(USER_B, (tx) => tx.query(statement, [...params])),
      /permission denied|does not exist/,
      statement,
    );
  }
  assert.deepEqual(
    await sql.query("select id from public.mcp_events where request_id = $1", [requestId]),
    [],
  );
  // The server writes for a verified identity, and refuses one that does not hold together.
  await serverWritesAudit(sql, USER_B, null, "t", requestId);
  await assert.rejects(
    sql.query("select public.write_mcp_events($1::uuid, $2, 'mcp', null, '[]')", [
      USER_B,
      `user:${USER_A}`,
    ]),
    /must name that caller's own user id/,
  );
  const written = await asUser(USER_B, (tx) =>
    tx.query<{ caller: string; user_id: string }>(
      "select caller, user_id::text from public.mcp_events where request_id = $1",
      [requestId],
    ));
  assert.deepEqual(written, [{ caller: `user:${USER_B}`, user_id: USER_B }]);
  assert.deepEqual(
    await asUser(
      USER_A,
      (tx) => tx.query("select id from public.mcp_events where request_id = $1", [requestId]),
    ),
    [],
  );
  for (const [user, theirs] of [[USER_A, "bravo_tool"], [USER_B, "alpha_tool"]]) {
    const rows = await asUser(
      user,
      (tx) =>
        tx.query<{ tool: string }>("select tool from public.mcp_events where session_id = $1", [
          session,
        ]),
    );
    assert.equal(rows.length, 1);
    assert.notEqual(rows[0].tool, theirs);
  }
});

Deno.test("Supabase shape: neither user can change, delete or forge the other's messages and audit rows", async () => {
  const session = await twoUsersTalk();
  const deleted = await asUser(
    USER_B,
    (tx) =>
      tx.query("delete from public.chat_messages where session_id = $1 returning id", [session]),
  );
  assert.equal(deleted.length, 2, "B deletes only B's own two messages");
  const { sql } = await migratedSupabasePglite();
  const left = await sql.query<{ user_id: string }>(
    "select user_id::text from public.chat_messages where session_id = $1",
    [session],
  );
  assert.deepEqual(left.map((row) => row.user_id), [USER_A, USER_A]);
  await assert.rejects(
    asUser(USER_B, (tx) =>
      tx.query(
        "insert into public.chat_messages (session_id, owner, user_id, role, content) values ($1, $2, $3, 'user', 'forged')",
        [session, `user:${USER_A}`, USER_A],
      )),
    /row-level security/,
  );
  // Supabase's default privileges grant UPDATE on the table; the migrations take it back.
  await assert.rejects(
    asUser(USER_B, (tx) =>
      tx.query(
        "update public.chat_messages set content = 'changed' where session_id = $1 returning id",
        [session],
      )),
    /permission denied/,
  );
  const contents = await sql.query<{ content: string }>(
    "select content from public.chat_messages where session_id = $1",
    [session],
  );
  assert.ok(contents.every((row) => row.content.startsWith("alpha")));
  for (
    const statement of [
      "insert into public.mcp_events (caller, source, tool, success, duration_ms) values ('x', 'mcp', 't', true, 1)",
      "update public.mcp_events set tool = 'changed'",
      "delete from public.mcp_events",
    ]
  ) {
    await assert.rejects(
      asUser(USER_B, (tx) => tx.query(statement)),
      /permission denied/,
      statement,
    );
  }
});

Deno.test("Supabase shape: refinement loops stay with their owner: not read, listed, decided or updated by the other user", async () => {
  const { sql } = await migratedSupabasePglite();
  const store = new SqlRefinementStore(sql);
  const caller = (user: string): Caller => ({
    userId: user,
    owner: `user:${user}`,
    claims: userClaims(user),
  });
  const loop = await store.create(caller(USER_A), {
    loopType: "spec",
    threshold: 85,
    maxIterations: 5,
  });
  // B, even naming A's owner key, cannot reach it.
  const intruder: Caller = { ...caller(USER_B), owner: `user:${USER_A}` };
  await assert.rejects(store.get(intruder, loop.id), LoopNotFoundError);
  await assert.rejects(
    store.update(intruder, loop.id, (state) => ({ ...state, status: "completed" })),
    LoopNotFoundError,
  );
  assert.ok(!(await store.listRecent(intruder, 10)).some((state) => state.id === loop.id));
  assert.deepEqual(await store.findIds(intruder, loop.id.slice(0, 4), 10), []);
  const touched = await asUser(
    USER_B,
    (tx) =>
      tx.query(
        "update public.refinement_loops set status = 'completed' where id = $1 returning id",
        [
          loop.id,
        ],
      ),
  );
  assert.deepEqual(touched, []);
  await assert.rejects(
    asUser(USER_B, (tx) =>
      tx.query(
        "insert into public.refinement_loops (id, owner, user_id, loop_type, status, threshold, max_iterations) values ('0badc0de', $1, $2, 'spec', 'initialized', 85, 5)",
        [`user:${USER_A}`, USER_A],
      )),
    /row-level security/,
  );
  assert.equal((await store.get(caller(USER_A), loop.id)).status, "initialized");
});

Deno.test("Supabase shape: anon can execute none of the migrations' functions and reads or writes no row", async () => {
  await twoUsersTalk();
  const { sql } = await migratedSupabasePglite();
  const functions = await sql.query<{ name: string; anon: boolean; authenticated: boolean }>(
    `select p.oid::regprocedure::text as name,
            has_function_privilege('anon', p.oid, 'execute') as anon,
            has_function_privilege('authenticated', p.oid, 'execute') as authenticated
     from pg_proc p
     where p.pronamespace = 'public'::regnamespace
       and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
     order by 1`,
  );
  assert.deepEqual(
    [...new Set(functions.map((f) => f.name.replace(/\(.*$/, "")))].sort(),
    [...SCHEMA_FUNCTIONS],
  );
  for (const fn of functions) {
    assert.equal(fn.anon, false, `anon may execute ${fn.name}`);
    const serverOnly = (SERVER_ONLY_FUNCTIONS as readonly string[])
      .includes(fn.name.replace(/\(.*$/, ""));
    assert.equal(fn.authenticated, !serverOnly, `${fn.name}: authenticated ${fn.authenticated}`);
  }
  await assert.rejects(
    asAnon((tx) => tx.query("select public.chat_owner('anonymous')")),
    /permission denied for function chat_owner/,
  );
  await assert.rejects(
    asAnon((tx) => tx.query("select * from public.list_chat_sessions('anonymous')")),
    /permission denied for function list_chat_sessions/,
  );
  for (const table of ["chat_messages", "mcp_events", "refinement_loops"]) {
    // Granted by Supabase's defaults or not, a select by anon yields no row.
    const [{ count }] = await asAnon((tx) =>
      tx.query<{ count: number }>(`select count(*)::int as count from public.${table}`)
    ).catch(() => [{ count: 0 }]);
    assert.equal(count, 0, `anon reads ${table}`);
  }
  await assert.rejects(
    asAnon((tx) =>
      tx.query(
        "insert into public.chat_messages (session_id, owner, role, content) values ('s', 'anonymous', 'user', 'x')",
      )
    ),
    /row-level security|permission denied/,
  );
});
