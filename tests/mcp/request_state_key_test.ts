/**
 * The key MCP approvals' request state is signed with: configured, or derived
 * from a secret every instance shares, refused when too short, redacted from
 * logs, and the same on every instance given the same settings.
 */
import assert from "node:assert/strict";
import { configSecrets, loadConfig } from "../../shared/config/config.ts";
import { requestStateKey } from "../../shared/mcp/request_state_key.ts";
import { warnIfProcessKey } from "../../shared/app/routes.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";

const KEY = "k".repeat(32);

Deno.test("MCP_LOOP_REQUEST_STATE_KEY is the approvals' key, and is redacted from logs", () => {
  const config = loadConfig({ MCP_LOOP_REQUEST_STATE_KEY: KEY });
  assert.deepEqual(config.mcp.requestStateKey, {
    secret: KEY,
    from: "MCP_LOOP_REQUEST_STATE_KEY",
  });
  assert.ok(configSecrets(config).includes(KEY));
});

Deno.test("a request-state key shorter than 32 bytes stops start-up, saying how to make one", () => {
  assert.throws(
    () => loadConfig({ MCP_LOOP_REQUEST_STATE_KEY: "short-key" }),
    /MCP_LOOP_REQUEST_STATE_KEY must be at least 32 bytes; got 9\. Generate one with `openssl rand -base64 32`/,
  );
});

Deno.test("without one, the key comes from the project's secret key, else a long enough JWT secret, else the process", () => {
  const secret = "sb_secret_0123456789abcdefghijklmnopqrstuvwxyz";
  const fromProject = loadConfig({ SUPABASE_SECRET_KEYS: JSON.stringify({ default: secret }) });
  assert.deepEqual(fromProject.mcp.requestStateKey?.secret, secret);
  const jwt = "j".repeat(40);
  assert.deepEqual(loadConfig({ MCP_LOOP_JWT_SECRET: jwt }).mcp.requestStateKey, {
    secret: jwt,
    from: "MCP_LOOP_JWT_SECRET",
  });
  assert.equal(loadConfig({ SUPABASE_JWT_SECRET: "too-short" }).mcp.requestStateKey, undefined);
  assert.equal(loadConfig({}).mcp.requestStateKey, undefined);
});

Deno.test("the same secret gives every instance the same 32-byte key (not the secret itself); none gives each its own", async () => {
  const [a, b] = await Promise.all([
    requestStateKey({ secret: KEY })(),
    requestStateKey({ secret: KEY })(),
  ]);
  assert.equal(a.length, 32);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, new TextEncoder().encode(KEY));
  assert.notDeepEqual(await requestStateKey({ secret: `${KEY}!` })(), a);
  const once = requestStateKey(undefined);
  assert.deepEqual(await once(), await once(), "derived once per process");
  assert.notDeepEqual(await requestStateKey(undefined)(), await once());
});

Deno.test("a process key where several processes may share the database is warned about at start", () => {
  const warned = (env: Record<string, string>) => {
    const logger = new RecordingLogger();
    warnIfProcessKey(loadConfig(env), logger);
    return logger.entries.filter((e) => /MCP_LOOP_REQUEST_STATE_KEY/.test(e.message)).length;
  };
  const postgres = { DATABASE_URL: "postgres://u:p@localhost:5432/db" };
  assert.equal(warned(postgres), 1);
  assert.equal(warned({ ...postgres, MCP_LOOP_REQUEST_STATE_KEY: KEY }), 0);
  assert.equal(warned({}), 0, "PGlite: one process");
});
