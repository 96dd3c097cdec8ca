/**
 * Forgetting, export and working memory under row level security, as
 * PostgREST runs a signed-in user's request (role `authenticated`, the JWT's
 * claims): on the Supabase-shaped PGlite, and on Postgres when one is given.
 * A user reaches only their own rows, whatever owner they pass; a run whose
 * session was deleted while it ran stores nothing afterwards.
 */
import assert from "node:assert/strict";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import type { Sql, SqlTx } from "../../shared/ports.ts";
import { EXPORT_SECTIONS } from "../../shared/store/caller_data_port.ts";
import { toVectorLiteral } from "../../shared/store/sql_values.ts";
import { userClaims } from "../auth/test_tokens.ts";
import { onPgliteAndPostgres } from "../support/postgres.ts";
import { migratedSupabasePglite } from "../support/supabase_shape.ts";

/** Runs `fn` as a signed-in user; `server` is the database as the server's own role. */
type AsUser = (<T>(user: string, fn: (tx: SqlTx) => Promise<T>) => Promise<T>) & { server: Sql };

function asUserOn(sql: Sql): AsUser {
  const asUser = <T>(user: string, fn: (tx: SqlTx) => Promise<T>) =>
    sql.transaction(async (tx) => {
      await tx.query(
        "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
        [JSON.stringify(userClaims(user))],
      );
      return await fn(tx);
    });
  return Object.assign(asUser, { server: sql });
}

/**
 * The caller's export as `GET /mcp-loop/data` reads it — `export_chat_page`, head
 * and sections — as the one row the tests destructure (one page a section here).
 */
async function exportRows(tx: SqlTx, owner: string) {
  const page = (section: string) =>
    tx.query<{ item: Record<string, unknown> }>(
      "select item from public.export_chat_page($1, $2, null, 1000, 100000000)",
      [owner, section],
    );
  const [head] = await page("head");
  const document: Record<string, unknown> = { ...head.item };
  for (const section of EXPORT_SECTIONS) {
    document[section] = (await page(section)).map((row) => row.item);
  }
  return [{ document: document as Record<string, unknown[]> }];
}

/** Everything a user can have: a turn with an audit row, a loop, a run, working memory and a summary. */
async function fill(asUser: AsUser, user: string, session: string, word: string) {
  // The turn's audit row, as the server writes it (a user may not).
  await asUser.server.query("select public.write_mcp_events($1::uuid, $2, 'loop', $3, $4::jsonb)", [
    user,
    `user:${user}`,
    session,
    JSON.stringify([{
      tool: "t",
      input: { word },
      output: { word },
      success: true,
      duration_ms: 1,
    }]),
  ]);
  await asUser(user, async (tx) => {
    await tx.query(
      "select public.save_chat_turn($1, $2, $3, $4::vector, 'hashing-v1', $5)",
      [
        session,
        `user:${user}`,
        `${word} private note`,
        toVectorLiteral(hashingVector(`${word} private note`)),
        `${word} reply`,
      ],
    );
    await tx.query(
      `insert into public.refinement_loops (id, owner, loop_type, status, threshold, max_iterations)
       values ($1, $2, 'spec', 'initialized', 85, 5)`,
      [crypto.randomUUID().slice(0, 8), `user:${user}`],
    );
    await tx.query(
      `insert into public.mcp_runs (owner, session_id, status, request, checkpoint)
       values ($1, $2, 'completed', $3::jsonb, '{}')`,
      [`user:${user}`, session, JSON.stringify({ said: `${word} private note` })],
    );
    await tx.query("select public.put_working_memory($1, $2::jsonb, 0)", [
      `user:${user}`,
      JSON.stringify({ facts: [`${word} fact`] }),
    ]);
    // A summary covers a message that exists (erasure wins: 20261129100200_erasure_wins.sql).
    await tx.query(
      `select public.save_session_summary($1, $2, $3,
         (select max(seq) from public.chat_messages where session_id = $1), 1, 0)`,
      [session, `user:${user}`, `${word} summary`],
    );
  });
}

function rlsSuite(name: string, open: () => Promise<Sql | undefined>, ignore: boolean) {
  const test = (title: string, fn: (asUser: AsUser, sql: Sql) => Promise<void>) =>
    Deno.test({
      name: `${name}: ${title}`,
      ignore,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => {
        const sql = (await open())!;
        await fn(asUserOn(sql), sql);
      },
    });
  const users = () => [crypto.randomUUID(), crypto.randomUUID()];

  test("deleting a session deletes only the caller's rows, whatever owner is passed", async (asUser) => {
    const [a, b] = users();
    const session = `rls-${crypto.randomUUID()}`;
    await fill(asUser, a, session, "alpha");
    await fill(asUser, b, session, "bravo");
    const [deleted] = await asUser(
      a,
      (tx) => tx.query("select * from public.delete_chat_session($1, $2)", [session, `user:${b}`]),
    );
    assert.deepEqual(deleted, { messages: 2, runs: 1, summaries: 1, audit_rows: 1 });
    const left = (user: string) => asUser(user, (tx) => exportRows(tx, `user:${user}`));
    const [{ document: ofA }] = await left(a);
    assert.deepEqual([ofA.messages, ofA.runs, ofA.sessionSummaries, ofA.loops.length], [
      [],
      [],
      [],
      1,
    ]);
    assert.deepEqual(ofA.toolCalls.map((c) => (c as { input: unknown }).input), [null]);
    const [{ document: ofB }] = await left(b);
    assert.deepEqual([ofB.messages.length, ofB.runs.length, ofB.sessionSummaries.length], [
      2,
      1,
      1,
    ]);
    assert.deepEqual(ofB.toolCalls.map((c) => (c as { input: unknown }).input), [{
      word: "bravo",
    }]);
  });

  test("an export holds only the caller's rows, whatever owner is passed", async (asUser) => {
    const [a, b] = users();
    const session = `rls-${crypto.randomUUID()}`;
    await fill(asUser, a, session, "alpha");
    await fill(asUser, b, session, "bravo");
    const [{ document }] = await asUser(a, (tx) => exportRows(tx, `user:${b}`));
    assert.equal(document.owner, `user:${a}`);
    assert.deepEqual(document.workingMemory, { facts: ["alpha fact"] });
    assert.deepEqual(
      (document.sessionSummaries as { sessionId: string; summary: string }[])
        .map((s) => [s.sessionId, s.summary]),
      [[session, "alpha summary"]],
    );
    const text = JSON.stringify(document);
    assert.ok(text.includes("alpha private note") && !text.includes("bravo"));
  });

  test("deleting everything of a caller leaves the other user's loops, runs, memory and messages", async (asUser) => {
    const [a, b] = users();
    const session = `rls-${crypto.randomUUID()}`;
    await fill(asUser, a, session, "alpha");
    await fill(asUser, b, session, "bravo");
    const [deleted] = await asUser(
      a,
      (tx) => tx.query("select * from public.forget_chat_caller($1)", [`user:${b}`]),
    );
    assert.deepEqual(deleted, {
      messages: 2,
      runs: 1,
      loops: 1,
      memory: 1,
      summaries: 1,
      audit_rows: 1,
    });
    const [{ document }] = await asUser(
      b,
      (tx) => exportRows(tx, `user:${b}`),
    );
    assert.deepEqual(
      [document.messages.length, document.runs.length, document.loops.length],
      [2, 1, 1],
    );
    assert.deepEqual(document.workingMemory, { facts: ["bravo fact"] });
  });

  test("row level security alone keeps a user off another's memory, runs and audit rows", async (asUser) => {
    const [a, b] = users();
    const session = `rls-${crypto.randomUUID()}`;
    await fill(asUser, b, session, "bravo");
    const tried = await asUser(a, async (tx) => ({
      memory: await tx.query("select * from public.working_memory where owner = $1", [`user:${b}`]),
      runs: await tx.query("delete from public.mcp_runs where owner = $1 returning id", [
        `user:${b}`,
      ]),
      loops: await tx.query("delete from public.refinement_loops where owner = $1 returning id", [
        `user:${b}`,
      ]),
      written: await tx.query(
        "update public.working_memory set document = '{}' where owner = $1 returning owner",
        [`user:${b}`],
      ),
    }));
    assert.deepEqual(tried, { memory: [], runs: [], loops: [], written: [] });
    await assert.rejects(
      asUser(a, (tx) => tx.query("update public.mcp_events set input = null")),
      /permission denied/,
    );
    const [{ document }] = await asUser(
      b,
      (tx) => exportRows(tx, `user:${b}`),
    );
    assert.deepEqual([document.runs.length, document.loops.length], [1, 1]);
  });

  test("a run whose session was deleted while it ran stores nothing; a later run stores again", async (asUser) => {
    const [a] = users();
    const session = `rls-${crypto.randomUUID()}`;
    const save = (runId: string) =>
      asUser(a, (tx) =>
        tx.query<{ id: string | null }>(
          "select public.save_chat_turn($1, $2, 'hello', $3::vector, 'hashing-v1', 'hi', $4) as id",
          [session, `user:${a}`, toVectorLiteral(hashingVector("hello")), runId],
        ));
    const startRun = (status: string) =>
      asUser(a, async (tx) =>
        (await tx.query<{ id: string }>(
          `insert into public.mcp_runs (owner, session_id, status, request, checkpoint)
           values ($1, $2, $3, '{}', '{}') returning id`,
          [`user:${a}`, session, status],
        ))[0].id);
    const running = await startRun("running");
    const waiting = await startRun("waiting_approval");
    // forget_session keeps the runs still running (its own), and deletes the rest.
    const [spared] = await asUser(
      a,
      (tx) =>
        tx.query("select runs from public.delete_chat_session($1, $2, true)", [
          session,
          `user:${a}`,
        ]),
    );
    assert.deepEqual(spared, { runs: 1 });
    await asUser(
      a,
      (tx) => tx.query("select public.delete_chat_session($1, $2)", [session, `user:${a}`]),
    );
    assert.deepEqual(await save(running), [{ id: null }]);
    assert.deepEqual(await save(waiting), [{ id: null }]);
    const [{ id }] = await save(await startRun("running"));
    assert.ok(id, "a run started after the deletion stores its turn");
    const messages = await asUser(
      a,
      (tx) =>
        tx.query("select content from public.list_chat_messages($1, $2)", [session, `user:${a}`]),
    );
    assert.deepEqual(messages, [{ content: "hello" }, { content: "hi" }]);
  });
}

await onPgliteAndPostgres(
  rlsSuite,
  async () => (await migratedSupabasePglite()).sql,
  "Supabase shape",
);
