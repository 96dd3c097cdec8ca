/** The approval store suite against the in-memory fake and SQL on PGlite; RLS for two users. */
import assert from "node:assert/strict";
import { callDigest } from "../../shared/runs/approval_store.ts";
import { SqlApprovalStore } from "../../shared/store/sql_approval_store.ts";
import { MemoryApprovalStore } from "../fakes/memory_approval_store.ts";
import { sharedPglite } from "../support/pglite.ts";
import { asAnon, asUser, migratedSupabasePglite } from "../support/supabase_shape.ts";
import { USER_A, USER_B, userClaims } from "../auth/test_tokens.ts";
import { approvalStoreSuite } from "./approval_store_suite.ts";

approvalStoreSuite(
  "memory approval store",
  () => Promise.resolve(new MemoryApprovalStore()),
);
approvalStoreSuite(
  "SQL approval store on PGlite",
  async () => new SqlApprovalStore(await sharedPglite()),
);

Deno.test("SQL approval store on PGlite: under row level security a user answers only their own approvals", async () => {
  const sql = await sharedPglite();
  const store = new SqlApprovalStore(sql);
  const user = (id: string) => ({ userId: id, owner: `user:${id}`, claims: { sub: id } });
  const alice = user(crypto.randomUUID());
  const bob = user(crypto.randomUUID());
  const call = { tool: "delete_invoice", argsDigest: await callDigest({ id: "x" }) };
  const now = new Date();
  const id = await store.create(alice, { ...call, expiresAt: new Date(now.getTime() + 60_000) });
  // Even with Alice's owner key, Bob's identity reaches nothing: RLS, not just the owner filter.
  const bobAsAlice = { ...bob, owner: alice.owner };
  assert.deepEqual(await store.answer(bobAsAlice, id, { ...call, approved: true, now }), {
    kind: "unknown",
  });
  assert.deepEqual(await store.answer(alice, id, { ...call, approved: true, now }), {
    kind: "won",
  });
  const [row] = await sql.query<{ user_id: string; status: string }>(
    "select user_id::text, status from mcp_tool_approvals where id = $1",
    [id],
  );
  assert.deepEqual(row, { user_id: alice.userId, status: "approved" });
  // A user may change an answer's status, never which call it approved.
  await assert.rejects(
    sql.transaction(async (tx) => {
      await tx.query(
        "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
        [JSON.stringify({ sub: alice.userId, role: "authenticated" })],
      );
      await tx.query("update mcp_tool_approvals set args_digest = 'forged' where id = $1", [id]);
    }),
    (error: { code?: string }) => error.code === "42501", // insufficient privilege
  );
});

Deno.test("Supabase shape: a user answers only their own approvals and cannot forge the call; anon reaches none", async () => {
  const { sql } = await migratedSupabasePglite();
  const store = new SqlApprovalStore(sql);
  const alice = { userId: USER_A, owner: `user:${USER_A}`, claims: userClaims(USER_A) };
  const call = { tool: "delete_invoice", argsDigest: await callDigest({ id: "shape" }) };
  const id = await store.create(alice, { ...call, expiresAt: new Date(Date.now() + 60_000) });
  const [seen] = await asUser(USER_B, (tx) =>
    tx.query<{ count: number }>(
      "select count(*)::int as count from public.mcp_tool_approvals where id = $1",
      [id],
    ));
  assert.equal(seen.count, 0, "another user sees it");
  const [forged] = await asUser(USER_B, (tx) =>
    tx.query<{ count: number }>(
      `with changed as (update public.mcp_tool_approvals set status = 'approved' where id = $1
       returning 1) select count(*)::int as count from changed`,
      [id],
    ));
  assert.equal(forged.count, 0, "another user answered it");
  await assert.rejects(
    asUser(
      USER_A,
      (tx) => tx.query("update public.mcp_tool_approvals set tool = 'pay' where id = $1", [id]),
    ),
    /permission denied/,
  );
  const [{ count }] = await asAnon((tx) =>
    tx.query<{ count: number }>("select count(*)::int as count from public.mcp_tool_approvals")
  ).catch(() => [{ count: 0 }]);
  assert.equal(count, 0, "anon reads approvals");
  assert.deepEqual(
    await store.answer(alice, id, { ...call, approved: true, now: new Date() }),
    { kind: "won" },
  );
});
