/**
 * The data of the scale benchmark: `rows` messages of `users` users (five
 * sessions each) plus one heavy user, written by SQL in the database itself
 * (PGlite or Postgres) so a million rows need no million round trips.
 *
 * Vectors are 1536-d and clustered like text embeddings: a topic's centre
 * plus three of a thousand noise vectors (no two messages alike: duplicates
 * are not what text embeddings give, and they degrade an HNSW graph),
 * normalised; a user keeps to a few topics. Texts are eight words from a Zipf-like vocabulary (stop words, the
 * topic's words, a global tail), one in twenty with a ticket id (LIN-<n>),
 * one in ten a question. Same seed, same data.
 */
import type { Sql } from "../../shared/ports.ts";
import { toVectorLiteral } from "../../shared/store/sql_values.ts";

const DIM = 1536;
/** Topics, and noise vectors combined with them. */
export const TOPICS = 100;
export const NOISE = 1000;
/** The model the rows are stored under. */
export const MODEL = "synthetic";
/** Messages of the heavy user (a scope past the exact path's 2,000). */
export const HEAVY_ROWS = { pglite: 5_000, postgres: 20_000 };

/** A seeded PRNG (mulberry32). */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
}

function scaled(v: number[], length: number): number[] {
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => (x / norm) * length);
}

/** The topic centres (unit) and the noise vectors (length 0.6), as the data uses them. */
export function basis(): { topics: number[][]; noise: number[][] } {
  const rand = random(29);
  const vector = (length: number) =>
    scaled(Array.from({ length: DIM }, () => gaussian(rand)), length);
  return {
    topics: Array.from({ length: TOPICS }, () => vector(1)),
    noise: Array.from({ length: NOISE }, () => vector(0.6)),
  };
}

/** A query vector as the data's: topic `t` plus noise `a`, `b` and `c`, normalised. */
export function queryVector(
  { topics, noise }: ReturnType<typeof basis>,
  t: number,
  [a, b, c]: readonly number[],
): number[] {
  return scaled(topics[t].map((x, d) => x + noise[a][d] + noise[b][d] + noise[c][d]), 1);
}

/** The indexes of chat_messages, as the migrations create them (dropped for the bulk load). */
export const INDEXES: Record<string, string> = {
  chat_messages_owner_session_seq_idx:
    "create index chat_messages_owner_session_seq_idx on public.chat_messages (owner, session_id, seq desc) include (user_id)",
  chat_messages_user_seq_idx:
    "create index chat_messages_user_seq_idx on public.chat_messages (user_id, seq desc)",
  chat_messages_fts_idx:
    "create index chat_messages_fts_idx on public.chat_messages using gin (fts) with (fastupdate = off) where role = 'user'",
  chat_messages_embedding_hnsw_idx:
    "create index chat_messages_embedding_hnsw_idx on public.chat_messages using hnsw (embedding vector_cosine_ops)",
};

const STOP = "array['the','is','on','a','my','of','to','and','in','it','for','with']";

/** One batch of messages `from`..`to` (inclusive) of `users` ordinary users. */
const FILL = `
  insert into public.chat_messages (session_id, owner, user_id, role, content, embedding, embedding_model)
  select 'bench-' || u.n || '-' || s.s, u.owner, u.id, 'user',
         concat_ws(' ', (${STOP})[1 + g.i % 12], 'w' || (tt.t * 30 + (g.i * 13) % 30),
                   'w' || (tt.t * 30 + (g.i * 7) % 30), (${STOP})[1 + (g.i / 7) % 12],
                   'w' || (tt.t * 30 + (g.i * 11) % 30), 'g' || ((g.i::bigint * 2654435761) % 5000),
                   case when g.i % 20 = 0 then 'LIN-' || (g.i % 50000) end)
           || case when g.i % 10 = 0 then '?' else '.' end,
         l2_normalize(tp.v + n1.v + n2.v + n3.v), '${MODEL}'
  from generate_series($1::bigint, $2::bigint) g(i)
  join bench.users u on u.n = g.i % $3::bigint
  cross join lateral (select (g.i / $3::bigint) % 5 as s) s
  cross join lateral (
    select case when g.i % 10 < 7 then (u.n * 3 + s.s) % ${TOPICS} else (g.i * 7919) % ${TOPICS} end as t
  ) tt
  join bench.topics tp on tp.t = tt.t
  join bench.noise n1 on n1.n = g.i % ${NOISE}
  join bench.noise n2 on n2.n = (g.i / ${NOISE}) % ${NOISE}
  join bench.noise n3 on n3.n = (g.i * 7 + g.i / 7) % ${NOISE}`;

/** The heavy user's id and owner key. */
export const HEAVY = {
  id: "0000bead-0000-4000-8000-000000000001",
  owner: "user:0000bead-0000-4000-8000-000000000001",
};

/** The bench users' ids, by number. */
export async function userIds(sql: Sql): Promise<string[]> {
  const rows = await sql.query<{ id: string }>("select id::text as id from bench.users order by n");
  return rows.map((row) => row.id);
}

/** Whether `sql` already holds this data set (then nothing is rebuilt). */
export async function hasData(sql: Sql, rows: number, users: number): Promise<boolean> {
  try {
    const [meta] = await sql.query<{ rows: number; users: number }>(
      "select rows, users from bench.meta",
    );
    return meta?.rows === rows && meta?.users === users;
  } catch {
    return false;
  }
}

/** Fills `sql` (already migrated): drops the indexes, loads, rebuilds them; returns timings (ms). */
export async function fill(
  sql: Sql,
  { rows, users, heavy, log, buildSettings = "" }: {
    rows: number;
    users: number;
    heavy: number;
    log: (s: string) => void;
    /** Settings for the index builds (`set maintenance_work_mem = …;`), on the same connection. */
    buildSettings?: string;
  },
): Promise<Record<string, number>> {
  const timings: Record<string, number> = {};
  const time = async (name: string, fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    timings[name] = performance.now() - t0;
    log(`${name}: ${(timings[name] / 1000).toFixed(1)} s`);
  };
  await sql.exec(`
    drop schema if exists bench cascade;
    create schema bench;
    create table bench.meta (rows int, users int);
    create table bench.users (n int primary key, id uuid, owner text);
    create table bench.topics (t int primary key, v vector(1536));
    create table bench.noise (n int primary key, v vector(1536));
    truncate public.chat_messages cascade;
  `);
  for (const name of Object.keys(INDEXES)) await sql.exec(`drop index if exists public.${name}`);
  await sql.query(
    `insert into bench.users (n, id, owner)
     select n, md5('bench-user-' || n)::uuid, 'user:' || md5('bench-user-' || n)::uuid
     from generate_series(0, $1::int - 1) n`,
    [users],
  );
  const { topics, noise } = basis();
  for (const [table, vectors] of [["topics", topics], ["noise", noise]] as const) {
    for (let start = 0; start < vectors.length; start += 50) {
      const slice = vectors.slice(start, start + 50);
      await sql.query(
        `insert into bench.${table} select ordinality - 1 + $1::int, v::vector
         from unnest($2::text[]) with ordinality v`,
        [start, slice.map(toVectorLiteral)],
      );
    }
  }
  const batch = 20_000;
  await time(`load ${rows.toLocaleString("en-US")} messages`, async () => {
    for (let from = 0; from < rows; from += batch) {
      await sql.query(FILL, [from, Math.min(rows, from + batch) - 1, users]);
      if ((from / batch) % 10 === 9) log(`  ${(from + batch).toLocaleString("en-US")} rows`);
    }
  });
  await time(`load the heavy user's ${heavy.toLocaleString("en-US")} messages`, () =>
    sql.query(
      `insert into public.chat_messages (session_id, owner, user_id, role, content, embedding, embedding_model)
       select 'bench-heavy-' || (g.i % 20), $2, $3::uuid, 'user',
              'heavy ' || (${STOP})[1 + g.i % 12] || ' w' || (g.i % 3000) ||
                case when g.i % 50 = 0 then ' LIN-' || (900000 + g.i) else '' end,
              l2_normalize(tp.v + n1.v + n2.v + n3.v), '${MODEL}'
       from generate_series(1, $1::int) g(i)
       join bench.topics tp on tp.t = g.i % ${TOPICS}
       join bench.noise n1 on n1.n = (g.i * 13) % ${NOISE}
       join bench.noise n2 on n2.n = (g.i / 7 + 500) % ${NOISE}
       join bench.noise n3 on n3.n = (g.i * 3 + g.i / 13) % ${NOISE}`,
      [heavy, HEAVY.owner, HEAVY.id],
    ));
  for (const [name, ddl] of Object.entries(INDEXES)) {
    await time(`build ${name}`, () => sql.exec(`${buildSettings}${ddl}`));
  }
  // What autovacuum does after a bulk load (PGlite has none: the app analyzes, and this vacuums).
  await time("vacuum and analyze", () => sql.exec("vacuum (analyze) public.chat_messages"));
  await sql.query("insert into bench.meta values ($1, $2)", [rows, users]);
  return timings;
}

/** Table, TOAST and index sizes of chat_messages, in MB. */
export async function sizes(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql.query<{ name: string; bytes: string | number }>(`
    select 'table (heap)' as name, pg_relation_size('public.chat_messages') as bytes
    union all
    select 'TOAST (the vectors)', pg_total_relation_size(reltoastrelid)
    from pg_class where oid = 'public.chat_messages'::regclass
    union all
    select i.indexrelid::regclass::text, pg_relation_size(i.indexrelid)
    from pg_index i where i.indrelid = 'public.chat_messages'::regclass`);
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes) / 1_048_576]));
}
