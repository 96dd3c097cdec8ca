/**
 * The tables PostgREST exposes (`/rest/v1/<table>`), every one of them as the
 * catalog lists it, tried as `anon` and as a signed-in user (`authenticated`
 * with their claims) on the Supabase-shaped schema: select, insert, update and
 * delete across owners, changes of owner and id, and id squatting. The victims
 * — another user, an API key's tenant and the anonymous caller — have a row in
 * every table; after each statement the server checks that none of their rows
 * appeared, changed or went, and the statement is rolled back.
 */
import assert from "node:assert/strict";
import { migratedSupabasePglite } from "../support/supabase_shape.ts";
import {
  type ApiRole,
  attempt,
  belongsTo,
  type ExposedTable,
  exposedTables,
  IDENTITY_COLUMNS,
  lit,
  seedTenant,
  snapshotStatement,
  type Tenant,
} from "../support/postgrest_surface.ts";
import { userClaims } from "../auth/test_tokens.ts";

/**
 * Unique keys without an identity column, and why nobody can squat them: the
 * rows' ids are random and unguessable (uuid), or the key lives under a row
 * the writer must own.
 */
const UNOWNED_KEYS: Record<string, string> = {
  chat_messages_pkey: "a random uuid",
  mcp_events_pkey: "an identity column; nobody but the server inserts audit rows",
  mcp_runs_pkey: "a random uuid",
  mcp_tool_approvals_pkey: "a random uuid",
  mcp_run_events_pkey: "(run_id, seq) of a run the writer owns (its insert policy)",
  mcp_sessions_pkey: "32 random bytes the server draws (the Mcp-Session-Id)",
  mcp_session_requests_pkey:
    "(session_id, request_id) under a session the writer owns (its insert policy)",
  refinement_loops_pkey:
    "8 random hex characters the server draws; a clash is drawn again (SqlRefinementStore)",
};

/** The world the tests attack: the victims, the attacker (a signed-in user), the tables. */
async function world() {
  const { sql } = await migratedSupabasePglite();
  const session = `surface-${crypto.randomUUID()}`;
  const tag = crypto.randomUUID().slice(0, 8);
  const [victimId, attackerId] = [crypto.randomUUID(), crypto.randomUUID()];
  const victims = [
    await seedTenant(sql, {
      userId: victimId,
      owner: `user:${victimId}`,
      session,
      word: `vu${tag}`,
    }),
    await seedTenant(sql, { userId: null, owner: `key:victim-${tag}`, session, word: `vk${tag}` }),
    await seedTenant(sql, { userId: null, owner: "anonymous", session, word: `va${tag}` }),
  ];
  const attacker = await seedTenant(sql, {
    userId: attackerId,
    owner: `user:${attackerId}`,
    session,
    word: `at${tag}`,
  });
  const tables = await exposedTables(sql);
  const snapshot = snapshotStatement(tables, victims);
  const ownSnapshot = snapshotStatement(tables, [attacker]);
  const fingerprint = async () => (await sql.query<{ rows: unknown }>(snapshot))[0].rows;
  return { sql, victims, attacker, tables, snapshot, ownSnapshot, fingerprint };
}

type World = Awaited<ReturnType<typeof world>>;
let shared: Promise<World> | undefined;
const theWorld = () => shared ??= world();

/** Claims of a role's request: the attacker's for `authenticated`. */
const claimsOf = (role: ApiRole, attacker: Tenant) =>
  role === "authenticated" ? userClaims(attacker.userId!) : { role: "anon" };

/**
 * Runs `statement` as `role` and checks, as the server, that no victim's row
 * and (with `own`) none of the attacker's changed; returns what it gave.
 */
async function tryAs(w: World, role: ApiRole, statement: string, { own = false } = {}) {
  const before = await w.fingerprint();
  const ownBefore = own ? (await w.sql.query<{ rows: unknown }>(w.ownSnapshot))[0].rows : null;
  const result = await attempt(w.sql, {
    role,
    claims: claimsOf(role, w.attacker),
    statement,
    inspect: async (tx) => ({
      victims: (await tx.query<{ rows: unknown }>(w.snapshot))[0].rows,
      own: own ? (await tx.query<{ rows: unknown }>(w.ownSnapshot))[0].rows : null,
    }),
  });
  assert.deepEqual(result.seen.victims, before, `${role}: ${statement} changed a victim's rows`);
  assert.deepEqual(result.seen.own, ownBefore, `${role}: ${statement} changed its own row`);
  return result;
}

/** A row of `tenant` in `table`, as JSON. */
async function rowOf(w: World, table: ExposedTable, tenant: Tenant) {
  const [row] = await w.sql.query<{ row: Record<string, unknown> }>(
    `select to_jsonb(t) as row from public.${table.name} t where ${
      belongsTo(table, [tenant])
    } limit 1`,
  );
  assert.ok(row, `the fixture has no ${table.name} row of ${tenant.owner}`);
  return row.row;
}

/** An INSERT of `row` into `table` (the columns `role` may write) as one statement. */
function insertOf(table: ExposedTable, role: ApiRole, row: Record<string, unknown>): string {
  const columns = table.columns.filter((c) => c.insert[role] && !c.generated).map((c) => c.name);
  if (columns.length === 0) return `insert into public.${table.name} default values`;
  return `insert into public.${table.name} (${columns.join(", ")})
    select ${columns.join(", ")} from jsonb_populate_record(null::public.${table.name}, ${
    lit(JSON.stringify(row))
  }::jsonb) returning 1`;
}

/** `row` with fresh values in its key columns (so no unique key stops the insert first). */
function withFreshKeys(table: ExposedTable, row: Record<string, unknown>) {
  const fresh = { ...row };
  for (const { columns } of table.uniqueKeys) {
    for (const column of columns) {
      if (IDENTITY_COLUMNS.includes(column as never)) continue;
      const type = table.columns.find((c) => c.name === column)!.type;
      if (type === "uuid") fresh[column] = crypto.randomUUID();
      else if (type === "text") fresh[column] = crypto.randomUUID().slice(0, 8);
    }
  }
  return fresh;
}

/** `row` as the attacker's own: their owner key and user id in its identity columns. */
function asAttackers(row: Record<string, unknown>, attacker: Tenant) {
  const own = { ...row };
  for (const column of ["owner", "caller"]) if (column in own) own[column] = attacker.owner;
  if ("user_id" in own) own.user_id = attacker.userId;
  return own;
}

Deno.test("PostgREST tables: every table has row level security, and each exposed one says whose its rows are", async () => {
  const { tables } = await theWorld();
  assert.ok(tables.length >= 10, tables.map((t) => t.name).join(", "));
  for (const table of tables) {
    assert.equal(table.rls, true, `${table.name} has no row level security`);
    const exposed = Object.values(table.privileges).some((p) => Object.values(p).some(Boolean));
    const identified = table.columns.some((c) => IDENTITY_COLUMNS.includes(c.name as never));
    assert.ok(!exposed || identified, `${table.name} is exposed with no owner or user column`);
  }
});

Deno.test("PostgREST tables: no API role may update a row's identity or the columns it is found by", async () => {
  const { tables } = await theWorld();
  for (const table of tables) {
    const keys = new Set([...IDENTITY_COLUMNS, ...table.uniqueKeys.flatMap((k) => k.columns)]);
    for (const column of table.columns.filter((c) => keys.has(c.name))) {
      for (const role of ["anon", "authenticated"] as const) {
        assert.equal(column.update[role], false, `${role} may update ${table.name}.${column.name}`);
      }
    }
  }
});

Deno.test("PostgREST tables: every unique key a user may insert under holds the owner, or cannot be guessed", async () => {
  const { tables } = await theWorld();
  for (const table of tables) {
    for (const key of table.uniqueKeys) {
      if (key.columns.some((c) => IDENTITY_COLUMNS.includes(c as never))) continue;
      assert.ok(
        UNOWNED_KEYS[key.index],
        `${key.index} (${
          key.columns.join(", ")
        }) has no owner: another user could take a key first`,
      );
    }
  }
});

for (const role of ["anon", "authenticated"] as const) {
  Deno.test(`PostgREST tables as ${role}: no other identity's row is read, changed, deleted or forged`, async () => {
    const w = await theWorld();
    for (const table of w.tables) {
      for (const victim of w.victims) {
        const mine = belongsTo(table, [victim]);
        const read = await tryAs(w, role, `select 1 from public.${table.name} t where ${mine}`);
        assert.ok(!read.rows?.length, `${role} read ${victim.owner}'s ${table.name}`);
        const updatable = table.columns.filter((c) => c.update[role]).map((c) => c.name);
        for (const column of updatable) {
          const changed = await tryAs(
            w,
            role,
            `update public.${table.name} t set ${column} = t.${column} where ${mine} returning 1`,
          );
          assert.ok(!changed.rows?.length, `${role} updated ${victim.owner}'s ${table.name}`);
        }
        const deleted = await tryAs(
          w,
          role,
          `delete from public.${table.name} t where ${mine} returning 1`,
        );
        assert.ok(!deleted.rows?.length, `${role} deleted ${victim.owner}'s ${table.name}`);
        const row = await rowOf(w, table, victim);
        // Forged: the victim's identity, as is and with fresh keys; squatted: the victim's keys.
        for (
          const forged of [row, withFreshKeys(table, row), asAttackers(row, w.attacker)]
        ) {
          await tryAs(w, role, insertOf(table, role, forged));
        }
      }
    }
  });
}

Deno.test("PostgREST tables: a user cannot move their own row to another owner, user or key", async () => {
  const w = await theWorld();
  const [victim] = w.victims;
  for (const table of w.tables) {
    const mine = belongsTo(table, [w.attacker]);
    const moves: string[] = [];
    for (const column of table.columns) {
      if (column.name === "owner" || column.name === "caller") {
        for (const other of w.victims) moves.push(`${column.name} = ${lit(other.owner)}`);
      }
      if (column.name === "user_id") {
        moves.push(`user_id = ${lit(victim.userId)}`, "user_id = null");
      }
      if (table.uniqueKeys.some((k) => k.columns.includes(column.name))) {
        const theirs = (await rowOf(w, table, victim))[column.name];
        if (typeof theirs === "string") moves.push(`${column.name} = ${lit(theirs)}`);
      }
    }
    for (const move of moves) {
      const moved = await tryAs(
        w,
        "authenticated",
        `update public.${table.name} t set ${move} where ${mine} returning 1`,
        { own: true },
      );
      assert.ok(!moved.rows?.length, `a user ran ${move} on their own ${table.name} row`);
    }
  }
});
