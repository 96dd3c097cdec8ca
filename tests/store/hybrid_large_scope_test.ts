/**
 * Hybrid retrieval in a scope past 2,000 messages, where the SQL function
 * leaves the exact path: full text still finds an identifier whatever common
 * words the question holds (the table's statistics name them), and the vectors
 * still return k matches through the HNSW index with its iterative scan. On
 * PGlite, and on Postgres when one is given.
 */
import assert from "node:assert/strict";
import type { Caller, Sql } from "../../shared/ports.ts";
import { toVectorLiteral } from "../../shared/store/sql_values.ts";
import { sharedPglite } from "../support/pglite.ts";
import { onPgliteAndPostgres } from "../support/postgres.ts";
import { sqlStores } from "../support/sql_stores.ts";

const ROWS = 2_100;

/** A unit vector along `axis`, tilted by `noise` towards `other`. */
function unit(axis: number, other = axis, noise = 0): number[] {
  const v = new Array(1536).fill(0);
  v[axis] = Math.sqrt(1 - noise * noise);
  v[other] += noise;
  return v;
}

async function fillLarge(sql: Sql, caller: Caller) {
  const table = `large_${crypto.randomUUID().replaceAll("-", "")}`;
  const vectors = Array.from({ length: 60 }, (_, i) => unit(i % 3, 10 + i, 0.2));
  await sql.exec(`create table ${table} (k int, v vector(1536))`);
  await sql.query(
    `insert into ${table} select ordinality - 1, v::vector from unnest($1::text[]) with ordinality v`,
    [vectors.map(toVectorLiteral)],
  );
  await sql.query(
    `insert into public.chat_messages (session_id, owner, role, content, embedding, embedding_model)
     select 'big', $1, 'user',
            'the note ' || i || ' is about the weather and the office',
            (select v from ${table} where k = i % 60), 'given-vectors'
     from generate_series(1, $2::int) i`,
    [caller.owner, ROWS],
  );
  await sql.exec(`drop table ${table}`);
  // What ANALYZE (autovacuum, or PGlite's at close) keeps: the table's common lexemes.
  await sql.exec("analyze public.chat_messages");
}

function largeScope(name: string, open: () => Promise<Sql | undefined>, ignore: boolean) {
  Deno.test({
    name:
      `${name}: past 2,000 messages, full text finds an identifier among common words, and the vectors k matches`,
    ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const sql = (await open())!;
      const caller: Caller = { userId: null, owner: `key:large-${crypto.randomUUID()}` };
      const store = sqlStores(sql, { recentLimit: 0, matchCount: 5 });
      // The oldest message: the newest 2,000 that hold "the" would not include it.
      await store.saveTurn({
        caller,
        sessionId: "big",
        userMessage: {
          content: "the deploy key of the office is ZQ-7781",
          embedding: unit(7),
          embeddingModel: "given-vectors",
        },
        events: [],
      });
      await fillLarge(sql, caller);
      const { semanticMatches } = await store.loadContext({
        caller,
        sessionId: "big",
        text: "what is the deploy key of the office, the one about ZQ-7781?",
        embedding: unit(0),
        embeddingModel: "given-vectors",
      });
      const key = semanticMatches.find((m) => m.content.includes("ZQ-7781"));
      assert.ok(key, JSON.stringify(semanticMatches.map((m) => m.content)));
      assert.deepEqual(key.foundBy, ["full_text"]);
      const byVector = semanticMatches.filter((m) => m.foundBy.includes("vector"));
      assert.ok(byVector.length >= 4, `${byVector.length} matches from the vectors`);
      assert.ok(byVector.every((m) => (m.similarity ?? 0) > 0.9));
    },
  });
}

await onPgliteAndPostgres(largeScope, sharedPglite);
