/**
 * A PGlite shaped like a Supabase project's Postgres, for the tests of the
 * migrations, row level security and the deployed function: what the
 * migrations and policies rely on is created first, the way Supabase creates
 * it (supabase/postgres `migrations/db/init-scripts/00000000000000-initial-schema.sql`
 * and `…03-post-setup.sql`; `auth.uid()` from supabase/auth
 * `migrations/20220224000811_update_auth_functions.up.sql`), then the
 * project's migrations run unchanged.
 *
 * What differs from Supabase: the session's role, `postgres`, is a superuser
 * here (on Supabase it has BYPASSRLS but no superuser), PGlite has a single
 * session (pglite-socket multiplexes connections onto it, so session settings
 * are shared), and only the roles and schemas below exist.
 */
import type { PGlite } from "@electric-sql/pglite";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import type { Sql, SqlTx } from "../../shared/ports.ts";
import { applyMigrations } from "../../shared/store/migrations.ts";
import { toVectorLiteral } from "../../shared/store/sql_values.ts";
import { USER_A, USER_B, userClaims } from "../auth/test_tokens.ts";

/** What a Supabase database has before a project's first migration. */
export const SUPABASE_SHAPE_SQL = `
  -- Extensions live in their own schema; pgvector is enabled there.
  create schema extensions;
  create extension vector with schema extensions;

  -- The API roles PostgREST switches to, and the one it logs in as.
  create role anon nologin noinherit;
  create role authenticated nologin noinherit;
  create role service_role nologin noinherit bypassrls;
  create role authenticator noinherit login;
  grant anon, authenticated, service_role to authenticator;
  grant anon, authenticated, service_role to postgres;

  -- Everything created in public is granted to the API roles by default: what
  -- keeps anon out is row level security and the migrations' own revokes.
  grant usage on schema public to anon, authenticated, service_role;
  alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
  alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
  alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
  grant usage on schema extensions to anon, authenticated, service_role;
  alter role anon set statement_timeout = '3s';
  alter role authenticated set statement_timeout = '8s';

  -- postgres finds extensions' types unqualified (vector), as on Supabase.
  alter role postgres set search_path to "$user", public, extensions;
  set search_path to "$user", public, extensions;

  -- Supabase Auth's helpers.
  create schema auth;
  create function auth.uid() returns uuid language sql stable as $$
    select coalesce(
      nullif(current_setting('request.jwt.claim.sub', true), ''),
      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
    )::uuid
  $$;
  create function auth.role() returns text language sql stable as $$
    select coalesce(
      nullif(current_setting('request.jwt.claim.role', true), ''),
      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
    )::text
  $$;
  create function auth.jwt() returns jsonb language sql stable as $$
    select coalesce(
      nullif(current_setting('request.jwt.claim', true), ''),
      nullif(current_setting('request.jwt.claims', true), '')
    )::jsonb
  $$;
  grant usage on schema auth to anon, authenticated, service_role;
`;

/** A PGlite instance and the `Sql` port over it. */
export interface ShapedDatabase {
  db: PGlite;
  sql: Sql;
}

/** A new in-memory PGlite (with pgvector) shaped like Supabase's database, not migrated yet. */
export async function supabaseShapedPglite(): Promise<ShapedDatabase> {
  const [{ PGlite }, { vector }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite-pgvector"),
  ]);
  const db = await PGlite.create({ dataDir: "memory://", extensions: { vector } });
  await db.exec(SUPABASE_SHAPE_SQL);
  return { db, sql: pgliteSql(db) };
}

let shared: Promise<ShapedDatabase> | undefined;

/** The test process's Supabase-shaped PGlite with the migrations applied (as `supabase db push`). */
export function migratedSupabasePglite(): Promise<ShapedDatabase> {
  shared ??= supabaseShapedPglite().then(async (shaped) => {
    await applyMigrations(shaped.sql);
    return shaped;
  });
  return shared;
}

/** The `Sql` port over a PGlite instance. */
export function pgliteSql(db: PGlite): Sql {
  const asTx = (tx: Pick<PGlite, "query" | "exec">): SqlTx => ({
    query: async <R>(text: string, params?: unknown[]) => (await tx.query<R>(text, params)).rows,
    exec: async (script: string) => {
      await tx.exec(script);
    },
  });
  return {
    ...asTx(db),
    transaction: (fn) => db.transaction((tx) => fn(asTx(tx))),
    close: () => db.close(),
  };
}

/** The embedding model the helpers store messages under. */
export const CHAT_MODEL = "hashing-v1";

/** Runs `fn` as PostgREST runs a request: one transaction, as `role`, with `claims`. */
export async function asRole<T>(
  role: "authenticated" | "anon",
  claims: Record<string, unknown>,
  fn: (tx: SqlTx) => Promise<T>,
): Promise<T> {
  const { sql } = await migratedSupabasePglite();
  return await sql.transaction(async (tx) => {
    await tx.query(
      "select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)",
      [role, JSON.stringify(claims)],
    );
    return await fn(tx);
  });
}

/** Runs `fn` as a signed-in user (see {@link asRole}). */
export const asUser = <T>(user: string, fn: (tx: SqlTx) => Promise<T>) =>
  asRole("authenticated", userClaims(user), fn);

/** Runs `fn` as the anon role, as a request with only the project's public key does. */
export const asAnon = <T>(fn: (tx: SqlTx) => Promise<T>) => asRole("anon", { role: "anon" }, fn);

/**
 * Both users say something in the same session id: each stores a turn as
 * themselves, and the server writes its audit row (nobody else may).
 */
export async function twoUsersTalk(): Promise<string> {
  const session = `shared-${crypto.randomUUID()}`;
  const { sql } = await migratedSupabasePglite();
  for (const [user, word] of [[USER_A, "alpha"], [USER_B, "bravo"]]) {
    await asUser(user, (tx) =>
      tx.query(
        "select public.save_chat_turn($1, $2, $3, $4::vector, $5, $6)",
        [
          session,
          `user:${user}`,
          `${word} private note about the launch`,
          toVectorLiteral(hashingVector(`${word} private note about the launch`)),
          CHAT_MODEL,
          `${word} reply`,
        ],
      ));
    await serverWritesAudit(sql, user, session, `${word}_tool`);
  }
  return session;
}

/** An audit row of `tool` for `user`, written as the server writes it (its own role). */
export async function serverWritesAudit(
  sql: SqlTx,
  user: string,
  session: string | null,
  tool: string,
  requestId: string | null = null,
): Promise<void> {
  await sql.query("select public.write_mcp_events($1::uuid, $2, 'loop', $3, $4::jsonb)", [
    user,
    `user:${user}`,
    session,
    JSON.stringify([{
      request_id: requestId,
      tool,
      input: {},
      output: {},
      success: true,
      duration_ms: 1,
    }]),
  ]);
}
