/**
 * Vector search on PGlite over 10,000 stored 1536-d messages with clustered
 * synthetic embeddings (real text embeddings cluster by topic; uniform random
 * vectors are HNSW's worst case and unlike them). Measures session-scoped
 * context loads, global top-10 with recall@10 against an exact scan, insert
 * throughput, and the whole loop per request on PGlite.
 *
 * The 10k-row database is built once (bulk insert, then the HNSW build, about a
 * minute) and cached as a dump in `.data/bench-10k.tar`.
 */
import { PgliteSql } from "../../shared/adapters/pglite/pglite_sql.ts";
import { createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import { applyMigrations } from "../../shared/store/migrations.ts";
import { eventToJson } from "../../shared/store/audit_rows.ts";
import { toVectorLiteral } from "../../shared/store/sql_values.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { type BenchResult, measure } from "./harness.ts";

const ROWS = 10_000;
const CLUSTERS = 100;
const SESSIONS = 500;
const DIM = 1536;
const MODEL = "synthetic";
const TOPIC_DIRECTIONS = 8;
const CACHE = ".data/bench-10k.tar";

/** A seeded PRNG (mulberry32) so every run builds the same data. */
function random(seed: number): () => number {
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

function normalize(v: number[]): number[] {
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/**
 * `count` unit vectors in `CLUSTERS` topics. Like text embeddings, each topic
 * varies along a few directions (a low intrinsic dimension) plus a little
 * isotropic noise. The topics are the same for every seed; `seed` picks the points.
 */
function clustered(count: number, seed: number): number[][] {
  const topicRand = random(1);
  const randomUnit = () => normalize(Array.from({ length: DIM }, () => gaussian(topicRand)));
  const topics = Array.from({ length: CLUSTERS }, () => ({
    centre: randomUnit(),
    directions: Array.from({ length: TOPIC_DIRECTIONS }, randomUnit),
  }));
  const rand = random(seed);
  return Array.from({ length: count }, () => {
    const { centre, directions } = topics[Math.floor(rand() * CLUSTERS)];
    const v = centre.map((x) => x + gaussian(rand) * 0.1 / Math.sqrt(DIM));
    for (const direction of directions) {
      const weight = gaussian(rand) * 0.35;
      for (let d = 0; d < DIM; d++) v[d] += direction[d] * weight;
    }
    return normalize(v);
  });
}

async function buildDatabase(vectors: number[][], results: BenchResult[]): Promise<PgliteSql> {
  try {
    const dump = await Deno.readFile(CACHE);
    console.error(`reusing ${CACHE}`);
    const sql = await PgliteSql.open({ dataDir: "memory://", loadDataDir: new Blob([dump]) });
    // A dump made before a newer migration gets it now.
    await applyMigrations(sql);
    return sql;
  } catch {
    // build it
  }
  console.error("building the 10k-row database (bulk insert, then HNSW build; about a minute)...");
  const sql = await PgliteSql.open({ dataDir: "memory://" });
  await applyMigrations(sql);
  await sql.exec("drop index chat_messages_embedding_hnsw_idx");
  const batch = 100;
  const t0 = performance.now();
  for (let start = 0; start < vectors.length; start += batch) {
    const slice = vectors.slice(start, start + batch);
    const values = slice.map((_, i) =>
      `($${i * 3 + 1}, 'user', $${i * 3 + 2}, $${i * 3 + 3}::vector, '${MODEL}')`
    );
    await sql.query(
      `insert into chat_messages (session_id, role, content, embedding, embedding_model) values ${
        values.join(",")
      }`,
      slice.flatMap((
        v,
        i,
      ) => [`session-${(start + i) % SESSIONS}`, `message ${start + i}`, toVectorLiteral(v)]),
    );
  }
  const insertMs = performance.now() - t0;
  results.push({
    name: "bulk insert without the HNSW index, 100 rows per statement",
    iterations: vectors.length,
    medianMs: insertMs / vectors.length,
    p99Ms: NaN,
    meanMs: insertMs / vectors.length,
    perSecond: vectors.length / (insertMs / 1000),
  });
  const t1 = performance.now();
  await sql.exec(
    "create index chat_messages_embedding_hnsw_idx on chat_messages using hnsw (embedding vector_cosine_ops)",
  );
  console.error(
    `HNSW build over ${vectors.length} rows: ${((performance.now() - t1) / 1000).toFixed(1)} s`,
  );
  // PGlite has no autovacuum: without statistics the planner expects 50 rows and scans.
  await sql.exec("analyze chat_messages; checkpoint");
  await Deno.mkdir(".data", { recursive: true });
  await Deno.writeFile(CACHE, new Uint8Array(await (await sql.dump()).arrayBuffer()));
  return sql;
}

function exactTop(vectors: number[][], query: number[], k: number): number[] {
  const scored = vectors.map((v, i) => {
    let dot = 0;
    for (let d = 0; d < DIM; d++) dot += v[d] * query[d];
    return [dot, i] as const;
  });
  return scored.sort((a, b) => b[0] - a[0]).slice(0, k).map(([, i]) => i);
}

/** Runs the store benchmarks. */
export async function storeBenchmarks(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const vectors = clustered(ROWS, 42);
  const sql = await buildDatabase(vectors, results);
  const queries = clustered(100, 7).map(toVectorLiteral);
  const rawQueries = clustered(100, 7);

  results.push(
    await measure(
      "load_chat_context: session's last 10 + top-5 (20-message session)",
      (i) =>
        sql.query(
          "select * from load_chat_context($1, 'anonymous', $2::vector, $3, 10, 5, 0.0, 'session')",
          [
            `session-${Math.abs(i) % SESSIONS}`,
            queries[Math.abs(i) % queries.length],
            MODEL,
          ],
        ),
      { iterations: 500, warmup: 20 },
    ),
  );

  // The exact answers, computed before timing anything.
  const truths = rawQueries.map((q) =>
    new Set(exactTop(vectors, q, 10).map((n) => `message ${n}`))
  );
  for (const efSearch of [undefined, 100]) {
    const hits: number[] = [];
    const label = efSearch === undefined
      ? "default hnsw.ef_search (40)"
      : `hnsw.ef_search = ${efSearch}`;
    const result = await measure(`global top-10 over 10,000 rows, HNSW, ${label}`, async (i) => {
      const q = Math.abs(i) % queries.length;
      const rows = await sql.transaction(async (tx) => {
        if (efSearch) {
          await tx.query("select set_config('hnsw.ef_search', $1, true)", [String(efSearch)]);
        }
        return await tx.query<{ content: string }>(
          "select content from match_chat_messages($1::vector, 10, -1, $2)",
          [queries[q], MODEL],
        );
      });
      if (i >= 0) hits.push(rows.filter((r) => truths[q].has(r.content)).length / 10);
    }, { iterations: 500, warmup: 20 });
    const recall = hits.reduce((a, b) => a + b, 0) / hits.length;
    results.push({ ...result, note: `recall@10 ${recall.toFixed(3)}` });
  }

  results.push(
    await measure(
      "exact top-10 over 10,000 rows (sequential scan, for comparison)",
      (i) =>
        sql.transaction(async (tx) => {
          await tx.query("select set_config('enable_indexscan', 'off', true)");
          return await tx.query(
            "select id from chat_messages where embedding_model = $2 order by embedding <=> $1::vector limit 10",
            [queries[Math.abs(i) % queries.length], MODEL],
          );
        }),
      { iterations: 20, warmup: 2 },
    ),
  );

  const extra = clustered(200, 99).map(toVectorLiteral);
  results.push(
    await measure("insert one message with the HNSW index (10k rows)", (i) =>
      sql.query(
        "insert into chat_messages (session_id, role, content, embedding, embedding_model) values ('bench-insert', 'user', 'x', $1::vector, $2)",
        [extra[Math.abs(i) % extra.length], MODEL],
      ), { iterations: 200, warmup: 10 }),
  );

  // What SqlAuditLog writes under MCP load: a batch of calls' rows in one statement.
  const auditRows = Array.from({ length: 100 }, () =>
    eventToJson({
      source: "mcp",
      tool: "finalize_summary",
      input: {},
      output: { summary: "No work was done.", steps: 0, succeeded: 0, failed: 0 },
      success: true,
      durationMs: 0.3,
      requestId: crypto.randomUUID(),
    }));
  const audit = await measure(
    "100 MCP audit rows in one write_mcp_events (a batch)",
    () =>
      sql.query("select public.write_mcp_events(null, 'anonymous', 'mcp', null, $1::jsonb)", [
        `[${auditRows.join(",")}]`,
      ]),
    { iterations: 200, warmup: 20 },
  );
  results.push({ ...audit, note: `${(audit.medianMs * 10).toFixed(1)} µs per row` });

  results.push(...await loopOnPglite(sql));
  await sql.close();
  return results;
}

/** The whole request through the app (HTTP handler, loop, PGlite) with the offline defaults. */
async function loopOnPglite(sql: PgliteSql): Promise<BenchResult[]> {
  const app = createApp(loadConfig({}), { sql, logger: new RecordingLogger() });
  const body = (i: number) =>
    JSON.stringify({
      mode: "general",
      sessionId: `loop-bench-${Math.abs(i) % 50}`,
      messages: [{
        role: "user",
        content: `Please summarise what we discussed about topic ${i % 17}`,
      }],
    });
  const post = (i: number) =>
    app.fetch(
      new Request("http://localhost/mcp-loop", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: body(i),
      }),
    ).then((res) => res.arrayBuffer());
  return [
    await measure("POST /mcp-loop on PGlite (10k rows), offline defaults, 1 client", post, {
      iterations: 300,
      warmup: 30,
    }),
  ];
}
