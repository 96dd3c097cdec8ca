/**
 * Word statistics do not cross tenants: a word that only another user writes,
 * in most of the table's messages, cannot be told apart through what a
 * signed-in user may call — `chat_uncommon_lexemes` itself, and the hybrid
 * matches of a scope past 2,000 messages, where it decides which words full
 * text searches for. What the user gets is the same before and after the other
 * user writes it (and the planner's statistics are refreshed), on the
 * Supabase-shaped PGlite.
 */
import assert from "node:assert/strict";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import { toVectorLiteral } from "../../shared/store/sql_values.ts";
import { asUser, CHAT_MODEL, migratedSupabasePglite } from "../support/supabase_shape.ts";

/** Lower-case letters only: the `simple` configuration keeps them as one lexeme. */
const word = (prefix: string) =>
  prefix +
  Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => String.fromCharCode(97 + b % 26))
    .join("");

Deno.test({
  name:
    "a word only another user writes, in most messages, cannot be told apart through what a user may call",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const { sql } = await migratedSupabasePglite();
    const [observer, writer] = [crypto.randomUUID(), crypto.randomUUID()];
    const [secret, rare] = [word("zq"), word("vx")];
    const insert = (user: string, count: number, content: string) =>
      sql.query(
        `insert into public.chat_messages (session_id, owner, user_id, role, content)
         select 'stats', 'user:' || $1, $1::uuid, 'user', $2 || ' ' || i
         from generate_series(1, $3::int) i`,
        [user, content, count],
      );
    try {
      // The observer: one old message with the word, then a scope past 2,000 messages.
      await insert(observer, 1, `an old note about ${secret}`);
      await insert(observer, 2_100, "the note about the weather and the office");
      await sql.exec("analyze public.chat_messages");
      const seen = () =>
        asUser(observer, async (tx) => ({
          uncommon: (await tx.query<{ words: string[] }>(
            "select public.chat_uncommon_lexemes($1::text[]) as words",
            [[secret, rare]],
          ))[0].words,
          // Full text only (vectors weighted 0), over all of the observer's sessions.
          matches: (await tx.query<{ content: string }>(
            `select content from public.hybrid_match_chat_messages(
               $1, $2, $3::vector, $4, 5, -1, null, '{}', 1, 0, 60, 'simple')`,
            [
              `user:${observer}`,
              `${secret} ${rare}`,
              toVectorLiteral(hashingVector(secret)),
              CHAT_MODEL,
            ],
          )).map((row) => row.content),
        }));
      const before = await seen();
      assert.deepEqual(before.matches, [`an old note about ${secret} 1`]);
      // Another user writes the word in most of the table's messages.
      const [{ rows }] = await sql.query<{ rows: number }>(
        "select count(*)::int as rows from public.chat_messages",
      );
      await insert(writer, Math.max(3_000, rows), `${secret} again`);
      await sql.exec("analyze public.chat_messages");
      // The server's own role still sees the table's statistics: the word is common there.
      const [server] = await sql.query<{ words: string[] }>(
        "select public.chat_uncommon_lexemes($1::text[]) as words",
        [[secret, rare]],
      );
      assert.deepEqual(server.words, [rare]);
      assert.deepEqual(await seen(), before);
    } finally {
      await sql.query("delete from public.chat_messages where user_id = any($1::uuid[])", [
        [observer, writer],
      ]);
      await sql.exec("analyze public.chat_messages");
    }
  },
});

Deno.test("a signed-in user's common words are those of their own messages", async () => {
  const { sql } = await migratedSupabasePglite();
  const user = crypto.randomUUID();
  const [often, once] = [word("qa"), word("qb")];
  await sql.query(
    `insert into public.chat_messages (session_id, owner, user_id, role, content)
     select 'own', 'user:' || $1, $1::uuid, 'user',
            case when i = 1 then $3 else $2 || ' ' || i end
     from generate_series(1, 300) i`,
    [user, often, once],
  );
  try {
    const words = await asUser(
      user,
      (tx) =>
        tx.query<{ words: string[] }>("select public.chat_uncommon_lexemes($1::text[]) as words", [
          [often, once],
        ]),
    );
    assert.deepEqual(words[0].words, [once]);
    // Every word common: the rarest is kept.
    const rarest = await asUser(
      user,
      (tx) =>
        tx.query<{ words: string[] }>("select public.chat_uncommon_lexemes($1::text[]) as words", [
          [often],
        ]),
    );
    assert.deepEqual(rarest[0].words, [often]);
  } finally {
    await sql.query("delete from public.chat_messages where user_id = $1::uuid", [user]);
  }
});
