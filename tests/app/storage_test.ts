/**
 * Opening the database the way a deployed function does: on Supabase the
 * migrations are `supabase db push`'s job, so a database without them must say
 * so, and a process told to migrate without the files must say that. The
 * database is a Supabase-shaped PGlite served over the wire protocol, reached
 * through the Postgres adapter as DATABASE_URL.
 */
import assert from "node:assert/strict";
import { createApp } from "../../shared/app/app.ts";
import { openDatabase, type PgliteAdapterModule } from "../../shared/app/storage.ts";
import { loadConfig } from "../../shared/config/config.ts";
import { isAppError } from "../../shared/errors.ts";
import { applyMigrations } from "../../shared/store/migrations.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { servePglite } from "../support/pglite_socket.ts";
import { type ShapedDatabase, supabaseShapedPglite } from "../support/supabase_shape.ts";
import { post, validBody } from "../support/test_app.ts";
import type { ConfigOptions } from "../../shared/config/config_options.ts";

let database: Promise<ShapedDatabase> | undefined;
/** One Supabase-shaped PGlite for this file, without the migrations until a test applies them. */
const unmigrated = () => database ??= supabaseShapedPglite();

/** The settings of a function deployed on Supabase whose DATABASE_URL is `url`. */
const deployed = (url: string, options: ConfigOptions = {}, env: Record<string, string> = {}) =>
  loadConfig({
    SUPABASE_URL: "https://abcdefghijklmnopqrst.supabase.co",
    DATABASE_URL: url,
    MCP_LOOP_REQUIRE_AUTH: "false",
    MCP_LOOP_LOG_LEVEL: "silent",
    ...env,
  }, { options });

Deno.test("the option migrate on where supabase/migrations/ cannot be read is a configuration error saying what to do", async () => {
  const served = await servePglite((await unmigrated()).db);
  try {
    const config = deployed(served.url, { migrate: true });
    await assert.rejects(
      openDatabase(config, new RecordingLogger(), {
        migrationsDir: new URL("file:///nonexistent/bundle/supabase/migrations/"),
      }),
      (error) => {
        assert.ok(isAppError(error));
        assert.equal(error.code, "CONFIG_INVALID");
        assert.match(error.message, /option migrate\), but the migrations cannot be read/);
        assert.match(error.message, /\/nonexistent\/bundle\/supabase\/migrations\//);
        assert.match(error.message, /supabase db push.*turn the option migrate off/);
        return true;
      },
    );
  } finally {
    await served.close();
  }
});

Deno.test("a Supabase database without the migrations answers 503 saying to run supabase db push, until they are pushed", async () => {
  const shaped = await unmigrated();
  const served = await servePglite(shaped.db);
  const app = createApp(deployed(served.url), { logger: new RecordingLogger() });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await app.fetch(post(validBody("hello before db push")));
      const body = await res.json();
      assert.equal(res.status, 503, JSON.stringify(body));
      assert.equal(body.error.code, "DB_UNAVAILABLE");
      assert.match(body.error.message, /does not have this function's schema/);
      assert.match(body.error.message, /table public\.chat_messages/);
      assert.match(body.error.message, /supabase db push/);
    }
    // `supabase db push`; the function retries its database within a second.
    await applyMigrations(shaped.sql);
    let status = 0;
    for (let waited = 0; waited < 5_000 && status !== 200; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const res = await app.fetch(post(validBody("hello after db push")));
      status = res.status;
      await res.body?.cancel();
    }
    assert.equal(status, 200);
  } finally {
    await app.close();
    await served.close();
  }
});

Deno.test("a function on Supabase opens at most 2 connections per instance, however many queries run at once", async () => {
  const shaped = await unmigrated();
  await applyMigrations(shaped.sql);
  for (const [env, most] of [[{}, 2], [{ MCP_LOOP_DB_MAX_CONNECTIONS: "1" }, 1]] as const) {
    const served = await servePglite(shaped.db);
    const sql = await openDatabase(deployed(served.url, {}, env), new RecordingLogger());
    try {
      await Promise.all(Array.from({ length: 8 }, (_, i) => sql.query("select $1::int as i", [i])));
      assert.equal(served.connections(), most);
    } finally {
      await sql.close();
      await served.close();
    }
  }
});

Deno.test("PGlite, loaded by a specifier no bundler follows, opens and migrates; its module has the shape openDatabase expects", async () => {
  // Type-checked: the adapter module fits the interface storage.ts loads it as.
  const adapter: PgliteAdapterModule = await import(
    "../../shared/adapters/pglite/pglite_worker_sql.ts"
  );
  assert.equal(typeof adapter.PgliteWorkerSql.open, "function");
  const logger = new RecordingLogger();
  const config = loadConfig({ MCP_LOOP_DATA_DIR: "memory://", MCP_LOOP_LOG_LEVEL: "silent" });
  const sql = await openDatabase(config, logger);
  try {
    assert.deepEqual(await sql.query("select count(*)::int as n from chat_messages"), [{ n: 0 }]);
    const ready = logger.entries.find((entry) => entry.message === "database ready");
    assert.equal(ready?.fields?.kind, "pglite");
  } finally {
    await sql.close();
  }
});
