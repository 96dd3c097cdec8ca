/**
 * The functions PostgREST exposes (`/rest/v1/rpc/<name>`), every one the catalog
 * says `anon` or `authenticated` may execute, called by a signed-in user with
 * arguments that name someone else — another user, an API key's tenant, the
 * anonymous caller — on the Supabase-shaped schema. None may read, write or
 * delete another identity's rows, write an audit row, or answer differently
 * because of what another tenant wrote (statistics included): each call is
 * made before and after the victims write more (and the planner's statistics
 * are refreshed), rolled back each time, and must give the same answer.
 */
import assert from "node:assert/strict";
import { EXPORT_SECTIONS } from "../../shared/store/caller_data_port.ts";
import { userClaims } from "../auth/test_tokens.ts";
import { CHAT_MODEL, migratedSupabasePglite } from "../support/supabase_shape.ts";
import {
  attempt,
  exposedFunctions,
  exposedTables,
  lit,
  seedTenant,
  snapshotStatement,
  type Tenant,
  vectorOf,
} from "../support/postgrest_surface.ts";

/** The calls a signed-in user tries on each function, naming `v` (the victim) and its rows. */
const ATTACKS: Record<string, (v: Tenant) => string[][]> = {
  "chat_any_lexeme(text[])": (v) => [[`array[${lit(v.word)}]`]],
  "chat_is_question(text)": (v) => [[lit(`what is ${v.word}?`)]],
  "chat_lexemes(text,text)": (v) => [["'simple'", lit(`${v.word} private note`)]],
  "chat_owner(text)": (v) => [[lit(v.owner)]],
  "chat_query_lexemes(text,text)": (v) => [["'english'", lit(`${v.word} private note`)]],
  "chat_query_terms(text,text)": (v) => [["'english'", lit(`${v.word} private notes`)]],
  "chat_recall_scope(text,uuid,text)": (v) =>
    [lit(v.session), "null"].flatMap((session) => [
      [lit(v.owner), v.userId ? `${lit(v.userId)}::uuid` : "null", session],
      [lit(v.owner), "null", session],
    ]),
  "chat_tsvector(text,text)": (v) => [["'simple'", lit(v.word)]],
  "chat_uncommon_lexemes(text[])": (v) => [[`array[${lit(v.word)}, 'private', 'note']`]],
  "create_mcp_run(text,text,jsonb,jsonb,integer,double precision)": (v) => [[
    lit(v.owner),
    lit(v.session),
    `'{"mode":"general","planted":true}'`,
    "'{}'",
    "0",
    "60000",
  ]],
  "delete_chat_session(text,text,boolean)": (v) => [[lit(v.session), lit(v.owner), "false"]],
  "export_chat_page(text,text,text,integer,integer)": (v) =>
    ["head", ...EXPORT_SECTIONS].map((section) => [
      lit(v.owner),
      lit(section),
      "null",
      "1000",
      "100000000",
    ]),
  "forget_chat_caller(text)": (v) => [[lit(v.owner)]],
  "forget_session_summaries(text,text)": (v) => [[lit(v.owner), lit(v.session)], [
    lit(v.owner),
    "null",
  ]],
  "get_chat_messages(text,uuid[])": (
    v,
  ) => [[lit(v.owner), `array[${v.messages.map(lit)}]::uuid[]`]],
  "get_working_memory(text)": (v) => [[lit(v.owner)]],
  "hybrid_match_chat_messages(text,text,vector,text,integer,double precision,text,uuid[],double precision,double precision,integer,text)":
    (v) =>
      [lit(v.session), "null"].map((session) => [
        lit(v.owner),
        lit(`${v.word} private note`),
        `${lit(vectorOf(`${v.word} private note`))}::vector`,
        lit(CHAT_MODEL),
        "50",
        "-1",
        session,
        "'{}'",
        "1",
        "1",
        "60",
        "'simple'",
      ]),
  "list_chat_messages(text,text,integer)": (v) => [[lit(v.session), lit(v.owner), "1000"]],
  "list_chat_sessions(text,text,integer)": (v) => [[lit(v.owner), "''", "1000"]],
  "load_chat_context(text,text,vector,text,integer,integer,double precision,text,text,double precision,double precision,integer,text)":
    (v) =>
      ["'session'", "'user'"].map((scope) => [
        lit(v.session),
        lit(v.owner),
        `${lit(vectorOf(`${v.word} private note`))}::vector`,
        lit(CHAT_MODEL),
        "50",
        "50",
        "-1",
        scope,
        lit(`${v.word} private note`),
        "1",
        "1",
        "60",
        "'simple'",
      ]),
  "load_session_state(text,text,integer)": (v) => [[lit(v.session), lit(v.owner), "0"]],
  "load_session_summary(text,text,integer)": (v) => [[lit(v.session), lit(v.owner), "10"]],
  "mark_chat_erasure(text,text)": (v) => [[lit(v.owner), `md5(${lit(v.session)})`]],
  "match_chat_messages(vector,integer,double precision,text,text,uuid,uuid[],text)": (v) => [[
    `${lit(vectorOf(`${v.word} private note`))}::vector`,
    "50",
    "-1",
    lit(CHAT_MODEL),
    lit(v.session),
    `${lit(v.userId)}::uuid`,
    "'{}'",
    lit(v.owner),
  ]],
  "put_working_memory(text,jsonb,integer)": (v) =>
    ["0", "1"].map((version) => [lit(v.owner), `'{"facts":["planted"]}'`, version]),
  "save_chat_turn(text,text,text,vector,text,text,uuid,text)": (v) =>
    [v.runs.running, v.runs.done].map((run) => [
      lit(v.session),
      lit(v.owner),
      "'planted'",
      `${lit(vectorOf("planted"))}::vector`,
      lit(CHAT_MODEL),
      "'planted reply'",
      `${lit(run)}::uuid`,
      "'simple'",
    ]),
  "save_mcp_run(uuid,text,integer,text[],text,jsonb,integer,text,jsonb,jsonb,vector,text,double precision,jsonb)":
    (v) =>
      [v.runs.running, v.runs.done].map((run) => [
        `${lit(run)}::uuid`,
        lit(v.owner),
        "1",
        "array['running', 'completed']",
        "'cancelled'",
        "'{}'",
        "1",
        "'planted'",
        "null",
        `'{"planted":true}'`,
        "null",
        "null",
        "null",
        `'[{"type":"planted","data":{}}]'`,
      ]),
  "save_session_summary(text,text,text,bigint,integer,integer)": (v) =>
    ["0", "1"].map((version) => [
      lit(v.session),
      lit(v.owner),
      "'planted summary'",
      "1000000",
      "1",
      version,
    ]),
  "scrub_mcp_events(text,text)": (v) => [[lit(v.owner), lit(v.session)], [lit(v.owner), "null"]],
  "session_history(text,text,bigint,integer)": (v) => [[lit(v.session), lit(v.owner), "0", "500"]],
  // Limits of 0 are off: the answer does not depend on the minute's count.
  "take_caller_quota(text,bigint,integer,bigint)": (v) => [[lit(v.owner), "1", "0", "0"]],
};

/** Security definer functions a signed-in user may execute, and why each acts for its caller only. */
const DEFINERS: Record<string, string> = {
  "scrub_mcp_events(text,text)":
    "clears the content of the caller's own audit rows (chat_owner pins the owner to the JWT's user)",
  "take_caller_quota(text,bigint,integer,bigint)":
    "counts the caller's own requests (chat_owner pins the owner); sweeps only lapsed minutes",
};

/** The victims, the attacker, and every call, each as the SQL statement a request would run. */
async function world() {
  const { sql } = await migratedSupabasePglite();
  const session = `rpc-${crypto.randomUUID()}`;
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
  const functions = await exposedFunctions(sql);
  const calls = functions.filter((f) => f.authenticated).flatMap(({ signature }) =>
    victims.flatMap((victim) =>
      (ATTACKS[signature]?.(victim) ?? []).map((args) => ({
        signature,
        victim,
        statement: `select to_jsonb(x) as out from public.${signature.replace(/\(.*$/, "")}(${
          args.join(", ")
        }) as x`,
      }))
    )
  );
  const snapshot = snapshotStatement(await exposedTables(sql), victims);
  return { sql, victims, attacker, functions, calls, snapshot };
}

type World = Awaited<ReturnType<typeof world>>;
let shared: Promise<World> | undefined;
const theWorld = () => shared ??= world();

/** Makes `call` as the attacker; checks nobody else's rows and no audit row changed; rolled back. */
async function callAsAttacker(w: World, call: World["calls"][number]) {
  const inspect = async (tx: { query: World["sql"]["query"] }) => ({
    victims: (await tx.query<{ rows: unknown }>(w.snapshot))[0].rows,
    audit: (await tx.query<{ n: number }>("select count(*)::int as n from public.mcp_events"))[0].n,
  });
  const before = await inspect(w.sql);
  const result = await attempt(w.sql, {
    role: "authenticated",
    claims: userClaims(w.attacker.userId!),
    statement: call.statement,
    inspect,
  });
  assert.deepEqual(
    result.seen.victims,
    before.victims,
    `${call.statement} changed a victim's rows`,
  );
  assert.equal(result.seen.audit, before.audit, `${call.statement} wrote an audit row`);
  assert.equal(result.error, undefined, `${call.statement}: ${result.error?.message}`);
  const out = JSON.stringify(result.rows);
  for (const victim of w.victims) {
    // What the victims stored (seedTenant), unless the call itself says it (a query's echo).
    for (const text of ["private note", "second note", "reply", "summary", "fact", "request"]) {
      const stored = `${victim.word} ${text}`;
      if (call.statement.includes(stored)) continue;
      assert.ok(!out.includes(stored), `${call.statement} told ${victim.owner}'s "${stored}"`);
    }
  }
  return out;
}

/** An answer without what differs from call to call anyway: new ids and times. */
function normalized(out: string): string {
  return out
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g, "<time>");
}

Deno.test("PostgREST functions: anon may execute none", async () => {
  const { functions } = await theWorld();
  assert.deepEqual(functions.filter((f) => f.anon).map((f) => f.signature), []);
});

Deno.test("PostgREST functions: each one a signed-in user may execute is attacked here", async () => {
  const { functions } = await theWorld();
  const open = functions.filter((f) => f.authenticated).map((f) => f.signature);
  assert.deepEqual(open.filter((s) => !ATTACKS[s]), [], "functions with no attack in this suite");
  assert.deepEqual(Object.keys(ATTACKS).filter((s) => !open.includes(s)), [], "attacks on nothing");
});

Deno.test("PostgREST functions: the security definer ones a signed-in user may execute are the reviewed ones", async () => {
  const { functions } = await theWorld();
  const definers = functions.filter((f) => f.authenticated && f.securityDefiner);
  assert.deepEqual(definers.map((f) => f.signature).sort(), Object.keys(DEFINERS).sort());
});

Deno.test("PostgREST functions: a signed-in user reaches no other identity's rows and writes no audit row", async () => {
  const w = await theWorld();
  for (const call of w.calls) await callAsAttacker(w, call);
});

Deno.test({
  name:
    "PostgREST functions: every answer a signed-in user gets is the same whatever the others write",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const w = await theWorld();
    const answers = async () => {
      const all: string[] = [];
      for (const call of w.calls) all.push(normalized(await callAsAttacker(w, call)));
      return all;
    };
    const before = await answers();
    const [victim] = w.victims;
    // The victims write more: the user their word in most of the table's messages.
    const [{ rows }] = await w.sql.query<{ rows: number }>(
      "select count(*)::int as rows from public.chat_messages",
    );
    await w.sql.query(
      `insert into public.chat_messages (session_id, owner, user_id, role, content)
       select $1, $2, $3::uuid, 'user', $4 || ' private note ' || i
       from generate_series(1, $5::int) i`,
      [victim.session, victim.owner, victim.userId, victim.word, Math.max(3_000, rows)],
    );
    try {
      for (const other of w.victims) {
        await seedTenant(w.sql, { ...other, session: other.session, word: other.word });
      }
      await w.sql.exec("analyze");
      const after = await answers();
      for (const [i, call] of w.calls.entries()) {
        assert.equal(
          after[i],
          before[i],
          `the answer changed with the others' rows: ${call.statement}`,
        );
      }
    } finally {
      await w.sql.query("delete from public.chat_messages where owner = $1 and content like $2", [
        victim.owner,
        `${victim.word} private note %`,
      ]);
      await w.sql.exec("analyze public.chat_messages");
    }
  },
});
