/** The `Sql` port's behaviour, run against every adapter. */
import assert from "node:assert/strict";
import type { Sql } from "../../shared/ports.ts";
import { applyMigrations } from "../../shared/store/migrations.ts";

/** Registers the suite; `open` returns a fresh handle (closed by the test when `owned`). */
export function sqlPortSuite(
  name: string,
  open: () => Promise<Sql>,
  { ignore = false, owned = false }: { ignore?: boolean; owned?: boolean } = {},
): void {
  const test = (title: string, fn: (sql: Sql) => Promise<void>) =>
    Deno.test({
      name: `${name}: ${title}`,
      ignore,
      fn: async () => {
        const sql = await open();
        try {
          await fn(sql);
        } finally {
          if (owned) await sql.close();
        }
      },
    });

  test("query binds $n parameters and returns rows as objects", async (sql) => {
    const rows = await sql.query<{ n: number; t: string; b: boolean; j: { a: number } }>(
      "select $1::int as n, $2::text as t, $3::boolean as b, $4::jsonb as j",
      [41, "text", true, JSON.stringify({ a: 1 })],
    );
    assert.deepEqual(rows, [{ n: 41, t: "text", b: true, j: { a: 1 } }]);
  });

  test("a transaction commits when its function resolves", async (sql) => {
    const table = `port_${crypto.randomUUID().replaceAll("-", "")}`;
    await sql.exec(`create table ${table} (v int)`);
    await sql.transaction(async (tx) => {
      await tx.query(`insert into ${table} values (1)`);
      await tx.query(`insert into ${table} values (2)`);
    });
    assert.deepEqual(await sql.query(`select v from ${table} order by v`), [{ v: 1 }, { v: 2 }]);
    await sql.exec(`drop table ${table}`);
  });

  test("a transaction rolls back everything when its function throws", async (sql) => {
    const table = `port_${crypto.randomUUID().replaceAll("-", "")}`;
    await sql.exec(`create table ${table} (v int)`);
    await assert.rejects(
      sql.transaction(async (tx) => {
        await tx.query(`insert into ${table} values (1)`);
        throw new Error("abort");
      }),
      /abort/,
    );
    assert.deepEqual(await sql.query(`select v from ${table}`), []);
    await sql.exec(`drop table ${table}`);
  });

  test("settings made local to a transaction do not leak out of it", async (sql) => {
    const inside = await sql.transaction((tx) =>
      tx.query<{ v: string }>(
        "select set_config('request.jwt.claims', '{\"sub\":\"x\"}', true) as v",
      )
    );
    assert.equal(inside[0].v, '{"sub":"x"}');
    const [after] = await sql.query<{ v: string | null }>(
      "select nullif(current_setting('request.jwt.claims', true), '') as v",
    );
    assert.equal(after.v, null);
  });

  test("exec runs a script of several statements", async (sql) => {
    const table = `port_${crypto.randomUUID().replaceAll("-", "")}`;
    await sql.exec(
      `create table ${table} (v int); insert into ${table} values (7); insert into ${table} values (8);`,
    );
    assert.deepEqual(await sql.query(`select count(*)::int as c from ${table}`), [{ c: 2 }]);
    await sql.exec(`drop table ${table}`);
  });

  test("a failing statement rejects with the database's message", async (sql) => {
    await assert.rejects(sql.query("select * from no_such_table_here"), /no_such_table_here/);
  });

  test("the migration runner applies a migration once, even when two start at once", async (sql) => {
    const table = `migrated_${crypto.randomUUID().replaceAll("-", "")}`;
    const migrations = [{
      version: `test${Date.now()}${table.slice(-6)}`,
      name: "t",
      sql: `create table ${table} (v int);`,
    }];
    const [a, b] = await Promise.all([
      applyMigrations(sql, { migrations }),
      applyMigrations(sql, { migrations }),
    ]);
    assert.deepEqual([...a, ...b], [migrations[0].version]);
    assert.deepEqual(await applyMigrations(sql, { migrations }), []);
    await sql.exec(`drop table ${table}`);
  });
}
