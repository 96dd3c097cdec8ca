import assert from "node:assert/strict";
import { AppError } from "../../shared/errors.ts";
import { lazySql } from "../../shared/store/lazy_sql.ts";
import { FakeSql } from "../fakes/fake_sql.ts";

Deno.test("lazySql opens on first use, once, and closes what it opened", async () => {
  let opens = 0;
  const inner = new FakeSql();
  const sql = lazySql(() => {
    opens++;
    return Promise.resolve(inner);
  });
  assert.equal(opens, 0);
  await Promise.all([sql.query("select 1"), sql.query("select 2")]);
  assert.equal(opens, 1);
  await sql.close();
  await assert.rejects(sql.query("select 3"), /closed/);
});

Deno.test("a failed open is retried, but not before retryAfterMs", async () => {
  let clock = 0;
  let opens = 0;
  const sql = lazySql(() => {
    opens++;
    return opens === 1 ? Promise.reject(new Error("refused")) : Promise.resolve(new FakeSql());
  }, { retryAfterMs: 1_000, now: () => clock });
  await assert.rejects(sql.query("select 1"), /refused/);
  await assert.rejects(sql.query("select 1"), /retrying shortly/);
  assert.equal(opens, 1);
  clock = 1_000;
  await sql.query("select 1");
  assert.equal(opens, 2);
});

Deno.test("between retries, a failed open's own error is repeated: it says what to do", async () => {
  let clock = 0;
  const sql = lazySql(
    () => Promise.reject(new AppError("DB_UNAVAILABLE", "run `supabase db push`")),
    { retryAfterMs: 1_000, now: () => clock },
  );
  await assert.rejects(sql.query("select 1"), /supabase db push/);
  clock = 500;
  await assert.rejects(sql.query("select 1"), /supabase db push/);
});
