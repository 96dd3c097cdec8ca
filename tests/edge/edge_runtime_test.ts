/**
 * The deployed entry (`functions/mcp-loop/index.ts`) as Supabase's Edge Runtime
 * runs it: on the runtime's Deno release, with `EdgeRuntime`, its `Deno.serve`,
 * no disk and no Worker (see tests/edge/edge_runtime_harness.ts), and the
 * settings the platform gives a deployed function: SUPABASE_URL (a fake that
 * serves the JWKS), a Postgres URL (a Supabase-shaped PGlite with pgvector and
 * the migrations applied, served over the wire protocol), the project's keys,
 * and a user token signed with the project's key.
 */
import assert from "node:assert/strict";
import { es256Key, es256Token, USER_A, userClaims } from "../auth/test_tokens.ts";
import {
  EDGE_DENO_VERSION,
  edgeDeno,
  type EdgeFunction,
  startEdgeFunction,
} from "../support/edge_runtime.ts";
import { serveFakeSupabase } from "../support/fake_supabase.ts";
import { httpClient } from "../support/mcp_fixture.ts";
import { servePglite } from "../support/pglite_socket.ts";
import { migratedSupabasePglite } from "../support/supabase_shape.ts";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createJsonSchemaValidator } from "../../shared/mcp/json_schema_validator.ts";

const edge = await edgeDeno();
if (!edge.path) console.warn(`edge runtime tests skipped: ${edge.reason}`);

/**
 * What the platform sets besides SUPABASE_URL and the database URL: the keys, the legacy ones
 * included (they stay set after being disabled), and the instance's facts.
 */
const PROJECT_KEYS = {
  SB_REGION: "eu-west-1",
  SB_EXECUTION_ID: crypto.randomUUID(),
  DENO_DEPLOYMENT_ID: "abcdefghijklmnopqrst_0f0e0d0c-0b0a-4000-8000-000000000001_7",
  SUPABASE_ANON_KEY: "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.legacy-anon-key",
  SUPABASE_SERVICE_ROLE_KEY: "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.legacy-service",
  SUPABASE_PUBLISHABLE_KEYS: '{"default":"sb_publishable_edge_test_default"}',
  SUPABASE_SECRET_KEYS: '{"default":"sb_secret_edge_test_default_0123456789"}',
};

/** A JSON POST; the MCP endpoint wants both media types accepted. */
const json = (
  body: unknown,
  authorization: string,
  accept = "application/json, text/event-stream",
) => ({
  method: "POST",
  headers: { "content-type": "application/json", accept, authorization },
  body: JSON.stringify(body),
});

Deno.test({
  name:
    "under the edge runtime the deployed entry serves a loop turn and MCP calls (a 2025-11-25 client asked to approve one on its session), reads no file, starts no worker, and hands its audit writes to EdgeRuntime.waitUntil",
  ignore: !edge.path,
  fn: async () => {
    const { db, sql } = await migratedSupabasePglite();
    const database = await servePglite(db);
    const key = await es256Key("edge-test-key");
    const supabase = serveFakeSupabase({ keys: [key] });
    let fn: EdgeFunction | undefined;
    try {
      fn = await startEdgeFunction(edge.path!, {
        env: {
          SUPABASE_URL: supabase.url,
          SUPABASE_DB_URL: database.url,
          // A user pointing the function at Supabase's pooler in transaction mode.
          DATABASE_URL: `${database.url}?pgbouncer=true`,
          ...PROJECT_KEYS,
        },
      });
      const token = await es256Token(
        key,
        userClaims(USER_A, { iss: `${supabase.url}/auth/v1` }),
      );
      const authorization = `Bearer ${token}`;

      // A loop turn: context from the database, the plan, the refinement tools, the turn stored.
      const sessionId = `edge-${crypto.randomUUID()}`;
      const loop = await fetch(
        `${fn.url}/mcp-loop`,
        json(
          {
            mode: "general",
            sessionId,
            messages: [{
              role: "user",
              content: "Start a spec refinement loop and record a score of 72",
            }],
          },
          authorization,
          "application/json",
        ),
      );
      const turn = await loop.json();
      assert.equal(loop.status, 200, JSON.stringify(turn));
      assert.equal(turn.data.stopReason, "finalized");
      // Deployed with no embedding key, the message is embedded by the runtime's own gte-small.
      assert.deepEqual(turn.data.context.embeddedMessage, {
        model: "supabase/gte-small",
        dimensions: 384,
      });
      assert.deepEqual(
        turn.data.plan.map((step: { tool: string }) => step.tool),
        ["initialize_refinement_loop", "decide_loop_next_action", "finalize_summary"],
      );
      const loopId = turn.data.intermediateResults[0].output.id as string;

      // An MCP call: the tool's answer now, its audit row in the background.
      const before = await fn.state();
      const call = await fetch(
        `${fn.url}/mcp-loop/mcp`,
        json({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "get_loop_status", arguments: { loop_id: loopId } },
        }, authorization),
      );
      const answer = await call.json();
      assert.equal(call.status, 200, JSON.stringify(answer));
      assert.equal(answer.result.structuredContent.id, loopId);
      assert.ok(
        Number(call.headers.get("x-edge-harness-pending-background")) >= 1,
        "the audit row was still being written, under EdgeRuntime.waitUntil, when the answer left",
      );
      // A real MCP client too.
      const client = await httpClient(new URL(`${fn.url}/mcp-loop/mcp`), { authorization });
      const listed = await client.listTools();
      assert.ok(listed.tools.some((tool: { name: string }) => tool.name === "get_loop_status"));
      await client.close();
      // The audit row, written in the background, is there once that work settles.
      await fn.settle();
      const audit = await sql.query<{ caller: string; source: string }>(
        "select caller, source from public.mcp_events where user_id = $1 and tool = 'get_loop_status' and input->>'loop_id' = $2",
        [USER_A, loopId],
      );
      assert.deepEqual(audit, [{ caller: `user:${USER_A}`, source: "mcp" }]);
      // A 2025-11-25 client that declares elicitation gets a session (in Postgres, the user's
      // under RLS) and is asked on the call's SSE stream before a destructive tool runs.
      const asked: string[] = [];
      const legacy = new LegacyClient({ name: "edge-legacy", version: "1" }, {
        capabilities: { elicitation: { form: {} } },
        jsonSchemaValidator: createJsonSchemaValidator(),
      });
      legacy.setRequestHandler(ElicitRequestSchema, (request: { params: { message: string } }) => {
        asked.push(request.params.message);
        return Promise.resolve({ action: "accept", content: { approve: true } });
      });
      const legacyTransport = new LegacyTransport(new URL(`${fn.url}/mcp-loop/mcp`), {
        requestInit: { headers: { authorization } },
      });
      await legacy.connect(legacyTransport);
      const stored = await sql.query<{ role: string; owner: string }>(
        "select role, owner from public.chat_messages where session_id = $1 and user_id = $2 order by seq",
        [sessionId, USER_A],
      );
      assert.deepEqual(stored.map((row) => row.role), ["user", "assistant"]);
      const forgot = await legacy.callTool({
        name: "forget_session",
        arguments: { session_id: sessionId },
      });
      assert.notEqual(forgot.isError, true, JSON.stringify(forgot));
      assert.deepEqual(asked.map((question) => /"forget_session"/.test(question)), [true]);
      const sessions = await sql.query<{ user_id: string }>(
        "select user_id::text from public.mcp_sessions where id = $1",
        [legacyTransport.sessionId],
      );
      assert.deepEqual(sessions, [{ user_id: USER_A }]);
      await legacy.close();

      const settled = await fn.settle();
      assert.equal(settled.deno, EDGE_DENO_VERSION);
      assert.deepEqual(settled.fileAccess, [], "nothing read from or written to disk");
      assert.equal(settled.workerGlobal, false);
      assert.equal(settled.bootError, undefined);
      assert.equal(settled.serveCalls, 1);
      assert.deepEqual(settled.processCalls, []);
      assert.ok(settled.waitUntil.calls > before.waitUntil.calls);
      assert.equal(settled.waitUntil.settled, settled.waitUntil.calls);
      const left = await sql.query<{ role: string }>(
        "select role from public.chat_messages where session_id = $1 and user_id = $2",
        [sessionId, USER_A],
      );
      assert.deepEqual(left, [], "the approved forget_session erased the turn's session");
      // The JWKS came from the project, once; nothing else of the project was called.
      assert.deepEqual(supabase.requests, ["GET /auth/v1/.well-known/jwks.json"]);
      assert.doesNotMatch(fn.process.stderr(), /Uncaught|TypeError/);
    } finally {
      await fn?.stop();
      await supabase.close();
      await database.close();
    }
  },
});

Deno.test({
  name:
    "under the edge runtime a bad configuration is logged once and every request answered 500 CONFIG_INVALID naming it, without secrets",
  ignore: !edge.path,
  fn: async () => {
    const secrets = ["sk-edge-test-openai-key-0123456789", "pooler-password-0123"];
    const fn = await startEdgeFunction(edge.path!, {
      env: {
        SUPABASE_URL: "https://abcdefghijklmnopqrst.supabase.co",
        SUPABASE_DB_URL:
          "postgresql://postgres:pw@db.abcdefghijklmnopqrst.supabase.co:5432/postgres",
        DATABASE_URL: `postgres.abcdefghijklmnopqrst:${secrets[1]}@pooler.supabase.com:6543`,
        OPENAI_API_KEY: secrets[0],
        MCP_LOOP_DEADLINE_MS: "5",
        ...PROJECT_KEYS,
      },
    });
    try {
      for (const path of ["/mcp-loop", "/mcp-loop/mcp", "/mcp-loop/health"]) {
        const res = await fetch(`${fn.url}${path}`, json({}, "Bearer x"));
        const text = await res.text();
        assert.equal(res.status, 500, `${path}: ${text}`);
        const body = JSON.parse(text);
        assert.equal(body.error.code, "CONFIG_INVALID");
        assert.match(body.error.message, /DATABASE_URL must be a Postgres connection URL/);
        assert.match(body.error.message, /MCP_LOOP_DEADLINE_MS must be an integer from 100/);
        for (const secret of secrets) assert.ok(!text.includes(secret), `${path} shows a secret`);
      }
      const state = await fn.state();
      assert.equal(state.bootError, undefined);
      assert.equal(state.serveCalls, 1);
      const stderr = fn.process.stderr();
      assert.equal(stderr.match(/the function cannot start/g)?.length, 1, stderr);
      assert.doesNotMatch(stderr, /TypeError|Uncaught/);
      for (const secret of secrets) assert.ok(!stderr.includes(secret), "the log shows a secret");
    } finally {
      await fn.stop();
    }
  },
});
