/**
 * The configuration of a function on Supabase: the database it is given (or
 * pointed at, the pooler), migrations, connections, and the project's API keys.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../../shared/config/config.ts";
import { isAppError } from "../../shared/errors.ts";

const POOLER =
  "postgresql://postgres.abcdefghijklmnopqrst:s3cret-pw@aws-0-eu-west-1.pooler.supabase.com:6543/postgres";

Deno.test("DATABASE_URL on Supabase (the pooler) leaves migrations to supabase db push", () => {
  // Deployed: the platform sets SUPABASE_URL and SUPABASE_DB_URL beside the secret.
  const deployed = {
    SUPABASE_URL: "https://abcdefghijklmnopqrst.supabase.co",
    SUPABASE_DB_URL: "postgresql://postgres:pw@db.abcdefghijklmnopqrst.supabase.co:5432/postgres",
    DATABASE_URL: POOLER,
  };
  assert.equal(loadConfig(deployed).database.kind, "postgres");
  assert.equal(loadConfig(deployed).migrate, false);
  // Under the edge runtime, whatever else is set.
  assert.equal(loadConfig({ DATABASE_URL: POOLER }, { runtime: "edge" }).migrate, false);
  // Off Supabase, a Postgres of one's own is migrated as before; PGlite always is.
  assert.equal(loadConfig({ DATABASE_URL: "postgres://me@localhost/app" }).migrate, true);
  assert.equal(loadConfig({ SUPABASE_URL: "https://abc.supabase.co" }).migrate, true);
});

Deno.test("on the edge runtime, migrations asked for and PGlite are configuration errors saying what to do", () => {
  assert.throws(
    () => loadConfig({ DATABASE_URL: POOLER }, { runtime: "edge", options: { migrate: true } }),
    (error) => {
      assert.ok(isAppError(error));
      assert.equal(error.code, "CONFIG_INVALID");
      assert.match(error.message, /option migrate cannot work on Supabase's edge runtime/);
      assert.match(error.message, /supabase db push/);
      return true;
    },
  );
  assert.throws(
    () => loadConfig({}, { runtime: "edge" }),
    /edge runtime cannot run PGlite .*set DATABASE_URL/,
  );
});

Deno.test("a database URL that is not one stops start-up naming the variable, never quoting the value", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ DATABASE_URL: "notaurl" }, /DATABASE_URL must be a Postgres connection URL.*not a URL/],
    [{ DATABASE_URL: "https://db.example.com/x" }, /DATABASE_URL .*its scheme is "https"/],
    [{ SUPABASE_DB_URL: "postgres:///postgres" }, /SUPABASE_DB_URL names no host/],
    [
      { DATABASE_URL: "postgresql://postgres:[YOUR-PASSWORD]@db.abc.supabase.co:5432/postgres" },
      /DATABASE_URL still holds the placeholder \[YOUR-PASSWORD\]/,
    ],
    [{ DATABASE_URL: "postgres://u:p@host:99999/db" }, /DATABASE_URL is not a valid URL/],
  ];
  for (const [env, message] of cases) {
    assert.throws(() => loadConfig(env), (error) => {
      assert.ok(isAppError(error));
      assert.match(error.message, message);
      for (const value of Object.values(env)) assert.ok(!error.message.includes(value), value);
      return true;
    }, JSON.stringify(env));
  }
  // Several hosts, as postgres.js reads them, and the pooler's own URL are fine.
  assert.equal(
    loadConfig({ DATABASE_URL: "postgres://u:p@h1:5432,h2:5433/db" }).database.kind,
    "postgres",
  );
  assert.equal(loadConfig({ DATABASE_URL: POOLER }).database.kind, "postgres");
});

Deno.test("an edge isolate opens at most 2 connections by default; MCP_LOOP_DB_MAX_CONNECTIONS sets it", () => {
  const max = (env: Record<string, string>, edgeRuntime = false) => {
    const { database } = loadConfig(env, { runtime: edgeRuntime ? "edge" : "local" });
    return database.kind === "postgres" ? database.maxConnections : undefined;
  };
  assert.equal(max({ DATABASE_URL: POOLER }, true), 2);
  assert.equal(max({ SUPABASE_DB_URL: POOLER }), 2);
  assert.equal(max({ DATABASE_URL: "postgres://me@localhost/app" }), 5);
  assert.equal(max({ DATABASE_URL: POOLER, MCP_LOOP_DB_MAX_CONNECTIONS: "1" }, true), 1);
  assert.throws(
    () => loadConfig({ DATABASE_URL: POOLER, MCP_LOOP_DB_MAX_CONNECTIONS: "0" }),
    /MCP_LOOP_DB_MAX_CONNECTIONS must be an integer from 1 to 50/,
  );
});

/** What Supabase sets in a function's environment once a project has new API keys. */
const LEGACY_AND_NEW_KEYS = {
  SUPABASE_URL: "https://abcdefghijklmnopqrst.supabase.co",
  // Still set after the project disables them; they then answer "Legacy API keys are disabled".
  SUPABASE_ANON_KEY: "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.legacy-anon",
  SUPABASE_SERVICE_ROLE_KEY: "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.legacy-service",
  SUPABASE_PUBLISHABLE_KEYS: '{"default":"sb_publishable_new_default"}',
  SUPABASE_SECRET_KEYS: '{"default":"sb_secret_new_default","ci":"sb_secret_new_ci"}',
};

Deno.test("the project's new API keys are used before the legacy ones, by tools, the store and auth", () => {
  const config = loadConfig({ ...LEGACY_AND_NEW_KEYS, MCP_LOOP_STORE: "supabase" });
  assert.equal(config.supabaseApi?.publishableKey, "sb_publishable_new_default");
  assert.deepEqual(config.store, {
    kind: "supabase",
    url: LEGACY_AND_NEW_KEYS.SUPABASE_URL,
    publishableKey: "sb_publishable_new_default",
    secretKey: "sb_secret_new_default",
  });
  assert.deepEqual(config.auth.projectSecretKeys, ["sb_secret_new_default", "sb_secret_new_ci"]);
  // A project on the legacy keys alone keeps working with them.
  const legacy = loadConfig({
    SUPABASE_URL: LEGACY_AND_NEW_KEYS.SUPABASE_URL,
    SUPABASE_ANON_KEY: LEGACY_AND_NEW_KEYS.SUPABASE_ANON_KEY,
  });
  assert.equal(legacy.supabaseApi?.publishableKey, LEGACY_AND_NEW_KEYS.SUPABASE_ANON_KEY);
  assert.throws(
    () => loadConfig({ ...LEGACY_AND_NEW_KEYS, SUPABASE_PUBLISHABLE_KEYS: "sb_publishable_x" }),
    /SUPABASE_PUBLISHABLE_KEYS must be a JSON object of named keys/,
  );
});
