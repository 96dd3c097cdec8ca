/**
 * What PostgREST exposes of the Supabase-shaped schema, read from the catalog
 * (so a table or function added later cannot escape the suites that use this),
 * and the means to attack it: tenants with a row in every table, a snapshot of
 * whose rows are whose, and an attempt that runs one statement as an API role
 * (`anon`, or `authenticated` with a user's claims, as PostgREST runs a request)
 * in a transaction that is rolled back once the server has looked at what the
 * statement did.
 *
 * PostgREST exposes the schemas in its `db-schemas` setting, `public` on a
 * Supabase project (plus Supabase's own `graphql_public`): tables and views by
 * `/rest/v1/<name>`, functions by `/rest/v1/rpc/<name>`, each with the
 * privileges and row level security of the request's role
 * (https://docs.postgrest.org/en/stable/references/api/tables_views.html,
 * https://docs.postgrest.org/en/stable/references/auth.html). The suites stand
 * for every request PostgREST could make: a statement per table and function.
 */
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import type { Sql, SqlTx } from "../../shared/ports.ts";
import { toVectorLiteral } from "../../shared/store/sql_values.ts";
import { newSessionId } from "../../shared/mcp/mcp_sessions.ts";
import { userClaims } from "../auth/test_tokens.ts";
import { CHAT_MODEL } from "./supabase_shape.ts";

/** The roles PostgREST switches to for a request. */
export type ApiRole = "anon" | "authenticated";

/** Columns that say whose a row is. */
export const IDENTITY_COLUMNS = ["owner", "caller", "user_id"] as const;

/** A column and what each API role may do with it. */
export interface ExposedColumn {
  name: string;
  type: string;
  /** Generated, or an identity column generated always: never written by an INSERT. */
  generated: boolean;
  insert: Record<ApiRole, boolean>;
  update: Record<ApiRole, boolean>;
}

/** A table (or view) of `public`, its row level security and its columns. */
export interface ExposedTable {
  name: string;
  rls: boolean;
  columns: ExposedColumn[];
  /** Table-level privileges of each API role (on the table or on any column of it). */
  privileges: Record<
    ApiRole,
    { select: boolean; insert: boolean; update: boolean; delete: boolean }
  >;
  /** Its unique indexes, each as the columns it covers. */
  uniqueKeys: { index: string; columns: string[] }[];
}

/** Every table and view of `public`, from the catalog. */
export async function exposedTables(sql: Sql): Promise<ExposedTable[]> {
  return await sql.query<ExposedTable>(`
    select c.relname as name, c.relrowsecurity as rls,
      (select jsonb_agg(jsonb_build_object(
         'name', a.attname,
         'type', format_type(a.atttypid, a.atttypmod),
         'generated', a.attgenerated <> '' or a.attidentity = 'a',
         'insert', jsonb_build_object(
           'anon', has_column_privilege('anon', c.oid, a.attnum, 'INSERT'),
           'authenticated', has_column_privilege('authenticated', c.oid, a.attnum, 'INSERT')),
         'update', jsonb_build_object(
           'anon', has_column_privilege('anon', c.oid, a.attnum, 'UPDATE'),
           'authenticated', has_column_privilege('authenticated', c.oid, a.attnum, 'UPDATE'))
       ) order by a.attnum)
       from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      ) as columns,
      (select jsonb_object_agg(r.role, jsonb_build_object(
         'select', has_any_column_privilege(r.role, c.oid, 'SELECT'),
         'insert', has_any_column_privilege(r.role, c.oid, 'INSERT'),
         'update', has_any_column_privilege(r.role, c.oid, 'UPDATE'),
         'delete', has_table_privilege(r.role, c.oid, 'DELETE')))
       from unnest(array['anon', 'authenticated']) as r(role)
      ) as privileges,
      coalesce((select jsonb_agg(jsonb_build_object(
         'index', i.indexrelid::regclass::text,
         'columns', (select jsonb_agg(a.attname order by a.attname) from pg_attribute a
                     where a.attrelid = c.oid and a.attnum = any (i.indkey))))
       from pg_index i where i.indrelid = c.oid and i.indisunique), '[]') as "uniqueKeys"
    from pg_class c
    where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'f')
    order by c.relname`);
}

/** A function of `public` that an API role may execute. */
export interface ExposedFunction {
  /** `name(argument types)`, as `regprocedure` prints it. */
  signature: string;
  securityDefiner: boolean;
  anon: boolean;
  authenticated: boolean;
}

/** Every function of `public` (extensions' own left out), with who may execute it. */
export async function exposedFunctions(sql: Sql): Promise<ExposedFunction[]> {
  return await sql.query<ExposedFunction>(`
    select p.oid::regprocedure::text as signature, p.prosecdef as "securityDefiner",
           has_function_privilege('anon', p.oid, 'execute') as anon,
           has_function_privilege('authenticated', p.oid, 'execute') as authenticated
    from pg_proc p
    where p.pronamespace = 'public'::regnamespace
      and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
    order by 1`);
}

/** Someone with a row in every table, under one session id. */
export interface Tenant {
  /** The user's id; null for an API key's tenant (the server writes for it). */
  userId: string | null;
  owner: string;
  session: string;
  /** A word only this tenant writes. */
  word: string;
  runs: { done: string; running: string };
  /** The ids of its messages. */
  messages: string[];
  loop: string;
  approval: string;
  /** Its MCP session (with one question waiting). */
  mcpSession: string;
}

/** SQL text of a string (test values only: ids, words). */
export const lit = (value: string | null) =>
  value === null ? "null" : `'${value.replaceAll("'", "''")}'`;

/** The vector literal of `text`, as the app stores it. */
export const vectorOf = (text: string) => toVectorLiteral(hashingVector(text));

/**
 * A tenant with a row in every table, written the way the app writes it: a
 * user's rows as the user (the audit row by the server), an API key's by the
 * server.
 */
export async function seedTenant(
  sql: Sql,
  { userId, owner, session, word }: Pick<Tenant, "userId" | "owner" | "session" | "word">,
): Promise<Tenant> {
  const write = async (tx: SqlTx) => {
    const run = async (status: string) =>
      (await tx.query<{ id: string }>(
        `insert into public.mcp_runs (owner, session_id, status, request, checkpoint)
         values ($1, $2, $3, $4::jsonb, '{}') returning id`,
        [owner, session, status, JSON.stringify({ said: `${word} request` })],
      ))[0].id;
    const runs = { done: await run("completed"), running: await run("running") };
    await tx.query(
      "insert into public.mcp_run_events (run_id, seq, type, data) values ($1, 1, 'run', $2::jsonb)",
      [runs.running, JSON.stringify({ said: word })],
    );
    for (
      const [content, reply, runId] of [[`${word} private note`, `${word} reply`, runs.done], [
        `${word} second note`,
        null,
        null,
      ]]
    ) {
      await tx.query(
        "select public.save_chat_turn($1, $2, $3, $4::vector, $5, $6, $7::uuid, 'simple')",
        [session, owner, content, vectorOf(content!), CHAT_MODEL, reply, runId],
      );
    }
    const loop = Array.from(
      crypto.getRandomValues(new Uint8Array(4)),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    await tx.query(
      `insert into public.refinement_loops (id, owner, loop_type, status, threshold, max_iterations)
       values ($1, $2, 'spec', 'initialized', 85, 5)`,
      [loop, owner],
    );
    const [{ id: approval }] = await tx.query<{ id: string }>(
      `insert into public.mcp_tool_approvals (owner, tool, args_digest, expires_at)
       values ($1, $2, 'digest', now() + interval '1 hour') returning id`,
      [owner, `${word}_tool`],
    );
    // A summary covers a message that exists (erasure wins: 20261129100200_erasure_wins.sql).
    await tx.query(
      `select public.save_session_summary($1, $2, $3,
         (select max(seq) from public.chat_messages where session_id = $1), 2, 0)`,
      [session, owner, `${word} summary`],
    );
    await tx.query("select public.put_working_memory($1, $2::jsonb, 0)", [
      owner,
      JSON.stringify({ facts: [`${word} fact`] }),
    ]);
    await tx.query("select public.mark_chat_erasure($1, md5($2))", [owner, `${session}-gone`]);
    await tx.query("select public.take_caller_quota($1, 10, 0, 0)", [owner]);
    const messages = (await tx.query<{ id: string }>(
      "select id from public.chat_messages where owner = $1 and session_id = $2 order by seq",
      [owner, session],
    )).map((row) => row.id);
    const mcpSession = newSessionId();
    await tx.query(
      `insert into public.mcp_sessions (id, owner, protocol_version, client_info, expires_at)
       values ($1, $2, '2025-11-25', $3::jsonb, now() + interval '1 hour')`,
      [mcpSession, owner, JSON.stringify({ name: `${word} client` })],
    );
    await tx.query(
      `insert into public.mcp_session_requests (session_id, request_id, owner, related_id, expires_at)
       values ($1, 'q-0', $2, '1', now() + interval '1 minute')`,
      [mcpSession, owner],
    );
    return { runs, messages, loop, approval, mcpSession };
  };
  const written = userId
    ? await sql.transaction(async (tx) => {
      await tx.query(
        "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
        [JSON.stringify(userClaims(userId))],
      );
      return await write(tx);
    })
    : await sql.transaction(write);
  await sql.query("select public.write_mcp_events($1::uuid, $2, 'loop', $3, $4::jsonb)", [
    userId,
    owner,
    session,
    JSON.stringify([{
      tool: `${word}_tool`,
      input: { word },
      output: { word },
      success: true,
      duration_ms: 1,
    }]),
  ]);
  return { userId, owner, session, word, ...written };
}

/** The SQL condition on `t` (a row of `table`) of rows belonging to `tenants`. */
export function belongsTo(table: ExposedTable, tenants: readonly Tenant[]): string {
  const has = (column: string) => table.columns.some((c) => c.name === column);
  const owners = `array[${tenants.map((t) => lit(t.owner)).join(", ")}]::text[]`;
  const users = tenants.flatMap((t) => t.userId ? [lit(t.userId)] : []);
  const parts: string[] = [];
  if (has("owner")) parts.push(`t.owner = any (${owners})`);
  if (has("caller")) parts.push(`t.caller = any (${owners})`);
  if (has("user_id") && users.length > 0) {
    parts.push(`t.user_id = any (array[${users.join(", ")}]::uuid[])`);
  }
  // A row with no owner of its own (a run's event) is its run's owner's.
  if (has("run_id") && !has("owner")) {
    parts.push(`t.run_id in (select r.id from public.mcp_runs r where r.owner = any (${owners}))`);
  }
  return parts.length > 0 ? `(${parts.join(" or ")})` : "true";
}

/**
 * One statement that fingerprints the rows of `tenants` in every table (vectors
 * left out: nothing may write them but the turn that stores them).
 */
export function snapshotStatement(tables: readonly ExposedTable[], tenants: readonly Tenant[]) {
  const parts = tables.map((table) => {
    const columns = table.columns.filter((c) => !/vector/.test(c.type)).map((c) => `t.${c.name}`);
    return `${lit(table.name)}, (select md5(coalesce(string_agg(r.row, ',' order by r.row), ''))
      from (select row(${columns.join(", ")})::text as row from public.${table.name} t
            where ${belongsTo(table, tenants)}) r)`;
  });
  return `select jsonb_build_object(${parts.join(",\n")}) as rows`;
}

/** What a statement run by {@link attempt} gave: its rows or its error. */
export interface Attempted<T> {
  rows?: Record<string, unknown>[];
  error?: { code?: string; message: string };
  /** What `inspect` found, as the server, before everything was rolled back. */
  seen: T;
}

const ROLLBACK = new Error("rolled back on purpose");

/**
 * Runs `statement` as `role` (with `claims`), then `inspect` as the server in
 * the same transaction, and rolls everything back.
 */
export async function attempt<T>(
  sql: Sql,
  { role, claims, statement, inspect }: {
    role: ApiRole;
    claims: Record<string, unknown>;
    statement: string;
    inspect: (tx: SqlTx) => Promise<T>;
  },
): Promise<Attempted<T>> {
  const result = {} as Attempted<T>;
  try {
    await sql.transaction(async (tx) => {
      await tx.query(
        "select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)",
        [role, JSON.stringify(claims)],
      );
      await tx.query("savepoint attack");
      try {
        result.rows = await tx.query(statement);
      } catch (error) {
        const { code, message } = error as { code?: string; message: string };
        result.error = { code, message };
        await tx.query("rollback to savepoint attack");
      }
      await tx.query(
        "select set_config('role', 'none', true), set_config('request.jwt.claims', '', true)",
      );
      result.seen = await inspect(tx);
      throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
  return result;
}
