/**
 * Supabase's API for the SQL functions (PostgREST's `POST /rest/v1/rpc/{fn}`)
 * over a Supabase-shaped PGlite, as a `fetch` for the Supabase adapters. It is
 * as strict as PostgREST on what the adapters rely on (docs.postgrest.org,
 * "Functions as RPC" and "Errors"; PostgREST builds the call the same way):
 *
 * - The body is a JSON object of named arguments. A function is found by its
 *   name in `public` and the set of names: a key the function has no argument
 *   for, or a missing argument without a default, matches no function — 404
 *   `PGRST202` "Could not find the function … in the schema cache".
 * - Each argument is converted from JSON to its declared type by Postgres
 *   (`json_to_record`, as PostgREST does), so a vector given as `"[…]"`, a
 *   jsonb given as an object, a uuid as a string all go through their types'
 *   own input functions.
 * - The request runs in one transaction as the role its bearer token names:
 *   the secret key `service_role`, the publishable key alone `anon`, a user's
 *   token `authenticated` with its claims in `request.jwt.claims` (so row
 *   level security and the functions' grants apply). Any other token: 401
 *   `PGRST301`.
 * - A function returning a table (even of one column), OUT arguments or a
 *   composite type answers its rows as objects — an array of them for a set,
 *   one object otherwise; `setof` a scalar type an array of values; a scalar
 *   its value; `void` 204 with no body (PostgREST/postgrest#1931); values are
 *   rendered by Postgres' JSON (bigint a number, timestamptz an ISO string).
 * - A database error answers PostgREST's status for its SQLSTATE
 *   (`42501` 401 for anon / 403, `23505`/`23503` 409, `P0001` 400, `42883` 404,
 *   class `08`/`53` 503, other server-side classes 500, the rest 400) with
 *   `{code, message, details, hint}`.
 */
import type { Sql } from "../../shared/ports.ts";

/** Who a bearer token is, to this fake project. */
export interface PostgrestKeys {
  publishableKey: string;
  secretKey: string;
  /** A signed-in user's claims (`sub` is the user id) by their access token; undefined: invalid. */
  users: (token: string) => Record<string, unknown> | undefined;
}

interface Signature {
  inputs: { name: string; type: string }[];
  returnsSet: boolean;
  /** Rows are objects: `returns table (…)`, OUT arguments, or a composite type. */
  returnsRows: boolean;
  returnType: string;
}

/** The fake API's `fetch`, and every function it was asked to call. */
export function postgrestRpc(
  sql: Sql,
  keys: PostgrestKeys,
): { fetch: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  const fake = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const match = new URL(request.url).pathname.match(/^\/rest\/v1\/rpc\/([a-z_][a-z0-9_]*)$/);
    if (request.method !== "POST" || !match) {
      return error(404, "PGRST125", `Invalid path ${new URL(request.url).pathname}`);
    }
    const name = match[1];
    calls.push(name);
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ??
      request.headers.get("apikey") ?? "";
    const role = roleOf(keys, token);
    if (!role) return error(401, "PGRST301", "JWT could not be decoded");
    const text = await request.text();
    const args = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return error(400, "PGRST102", "Function arguments must be a JSON object");
    }
    const signature = await findFunction(sql, name, Object.keys(args));
    if (!signature) {
      return error(
        404,
        "PGRST202",
        `Could not find the function public.${name}(${
          Object.keys(args).sort().join(", ")
        }) in the schema cache`,
      );
    }
    try {
      const value = await sql.transaction(async (tx) => {
        await tx.query(
          "select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)",
          [role.name, JSON.stringify(role.claims)],
        );
        const [row] = await tx.query<{ result: unknown }>(callText(name, signature, args), [
          JSON.stringify(args),
        ]);
        return row?.result;
      });
      if (signature.returnType === "void") return new Response(null, { status: 204 });
      return Response.json(value ?? null);
    } catch (e) {
      const { code = "XX000", message = String(e), detail = null, hint = null } = e as {
        code?: string;
        message?: string;
        detail?: string | null;
        hint?: string | null;
      };
      return error(statusOf(code, role.name), code, message, detail, hint);
    }
  };
  return { fetch: fake as typeof fetch, calls };
}

function roleOf(
  keys: PostgrestKeys,
  token: string,
): { name: string; claims: Record<string, unknown> } | undefined {
  if (token === keys.secretKey) return { name: "service_role", claims: { role: "service_role" } };
  if (token === keys.publishableKey) return { name: "anon", claims: { role: "anon" } };
  const claims = keys.users(token);
  return claims && { name: "authenticated", claims: { role: "authenticated", ...claims } };
}

/** The function `public.name` whose arguments fit the keys given, as PostgREST picks it. */
async function findFunction(
  sql: Sql,
  name: string,
  given: string[],
): Promise<Signature | undefined> {
  const rows = await sql.query<{
    names: string[] | null;
    modes: string[] | null;
    types: string[];
    nargs: number;
    ndefaults: number;
    retset: boolean;
    rettype: string;
    composite: boolean;
  }>(
    `select p.proargnames as names, p.proargmodes::text[] as modes,
            array(select format_type(t, null)
                  from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) t) as types,
            p.pronargs as nargs, p.pronargdefaults as ndefaults,
            p.proretset as retset, format_type(p.prorettype, null) as rettype,
            (select t.typtype = 'c' from pg_type t where t.oid = p.prorettype) as composite
     from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = 'public' and p.proname = $1`,
    [name],
  );
  for (const row of rows) {
    const inputs = row.types
      .map((type, i) => ({ name: row.names?.[i] ?? "", type, mode: row.modes?.[i] ?? "i" }))
      .filter((arg) => arg.mode === "i" || arg.mode === "b" || arg.mode === "v");
    const names = new Set(inputs.map((arg) => arg.name));
    const required = inputs.slice(0, row.nargs - row.ndefaults).map((arg) => arg.name);
    if (given.every((key) => names.has(key)) && required.every((key) => given.includes(key))) {
      return {
        inputs: inputs.map(({ name, type }) => ({ name, type })),
        // `returns table (…)` is a set of records too.
        returnsSet: row.retset,
        returnsRows: row.composite ||
          (row.modes ?? []).some((mode) => mode === "o" || mode === "t" || mode === "b"),
        returnType: row.rettype,
      };
    }
  }
  return undefined;
}

/** The statement: the arguments read from JSON into their types, then the call. */
function callText(name: string, signature: Signature, args: Record<string, unknown>): string {
  const used = signature.inputs.filter((arg) => arg.name in args);
  const columns = used.map((arg) => `"${arg.name}" ${arg.type}`).join(", ");
  const call = `public."${name}"(${
    used.map((arg) => `"${arg.name}" => a."${arg.name}"`).join(", ")
  })`;
  const from = used.length > 0
    ? ` from json_to_record($1::json) as a(${columns})`
    : " from (select $1::json) as unused";
  if (signature.returnsRows) {
    const rows = `(select f.*${from}, lateral ${call} f) r`;
    return signature.returnsSet
      ? `select coalesce(json_agg(r), '[]'::json) as result from ${rows}`
      : `select to_json(r) as result from ${rows}`;
  }
  if (signature.returnsSet) {
    return `select coalesce(json_agg(v), '[]'::json) as result${from}, lateral ${call} v`;
  }
  if (signature.returnType === "void") return `select ${call} is null as result${from}`;
  return `select to_json(${call}) as result${from}`;
}

/** PostgREST's HTTP status for a SQLSTATE (docs.postgrest.org, "Errors"). */
function statusOf(code: string, role: string): number {
  if (code === "42501") return role === "anon" ? 401 : 403;
  if (code === "23505" || code === "23503") return 409;
  if (code === "P0001") return 400;
  if (code === "42883" || code === "42P01") return 404;
  if (/^(08|53)/.test(code)) return 503;
  if (/^(09|25|2D|38|39|3B|40|54|55|57|58|F0|HV|P0|XX)/.test(code)) return 500;
  return 400;
}

function error(
  status: number,
  code: string,
  message: string,
  details: string | null = null,
  hint: string | null = null,
): Response {
  return Response.json({ code, message, details, hint }, { status });
}
