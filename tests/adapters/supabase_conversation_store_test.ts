import assert from "node:assert/strict";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import { SupabaseConversationStore } from "../../shared/adapters/supabase/supabase_conversation_store.ts";
import { isAppError } from "../../shared/errors.ts";
import { ANONYMOUS, type Caller, type SqlQueryable } from "../../shared/ports.ts";
import { recordingFetch } from "../fakes/recording_fetch.ts";

const URL_ = "https://project.supabase.co";
const USER: Caller = {
  userId: "6f1c1b0e-8a4f-4f3e-9d55-0c3a1f7b2e11",
  owner: "user:6f1c1b0e-8a4f-4f3e-9d55-0c3a1f7b2e11",
  token: "user.jwt.token",
};

/** The server's database for stores that must not touch it (only a stored turn's audit rows do). */
const noSql: SqlQueryable = {
  query: () => Promise.reject(new Error("this test expects no statement on the database")),
};

/** A mock database that records the statements it is sent. */
function recordingSql() {
  const statements: { text: string; params: unknown[] }[] = [];
  const sql: SqlQueryable = {
    query: <T>(text: string, params: unknown[] = []) => {
      statements.push({ text, params });
      return Promise.resolve([] as T[]);
    },
  };
  return { sql, statements };
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

Deno.test("loadContext calls load_chat_context as the user, with the vector as a pgvector literal", async () => {
  const { fetch, requests } = recordingFetch(() =>
    json([
      {
        kind: "recent",
        id: "r1",
        session_id: "s",
        role: "user",
        content: "earlier",
        created_at: "2026-01-01T00:00:00+00:00",
        similarity: null,
      },
      {
        kind: "match",
        id: "m1",
        session_id: "s",
        role: "user",
        content: "similar",
        created_at: "2026-01-01T00:00:00+00:00",
        similarity: 0.8,
        full_text_rank: 2,
        vector_rank: 1,
        score: 0.0325,
      },
      {
        kind: "memory",
        id: null,
        session_id: null,
        role: null,
        content: '{"facts": ["likes tea"]}',
        created_at: "2026-01-01T00:00:00+00:00",
        similarity: null,
      },
    ])
  );
  const store = new SupabaseConversationStore({
    url: URL_,
    publishableKey: "anon-key",
    fetch,
    sql: noSql,
  });
  const context = await store.loadContext({
    caller: USER,
    sessionId: "s",
    text: "similar?",
    embedding: [0.5, 0.25],
    embeddingModel: "text-embedding-3-small",
  });
  const [request] = requests;
  assert.equal(request.url, `${URL_}/rest/v1/rpc/load_chat_context`);
  assert.equal(request.method, "POST");
  assert.equal(request.headers.apikey, "anon-key");
  assert.equal(request.headers.authorization, "Bearer user.jwt.token");
  const body = request.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), [
    "p_embedding_model",
    "p_full_text_weight",
    "p_match_count",
    "p_match_threshold",
    "p_owner",
    "p_query_embedding",
    "p_query_text",
    "p_recent_limit",
    "p_rrf_k",
    "p_scope",
    "p_semantic_weight",
    "p_session_id",
    "p_text_config",
  ]);
  assert.match(body.p_query_embedding as string, /^\[0\.5000000,0\.2500000,0,0,/);
  assert.equal((body.p_query_embedding as string).split(",").length, 1536);
  assert.deepEqual(
    [
      body.p_session_id,
      body.p_embedding_model,
      body.p_recent_limit,
      body.p_match_count,
      body.p_scope,
      body.p_query_text,
      body.p_full_text_weight,
      body.p_semantic_weight,
      body.p_rrf_k,
      body.p_text_config,
    ],
    ["s", "text-embedding-3-small", 10, 5, "session", "similar?", 1, 1, 60, "simple"],
  );
  assert.deepEqual(context.recentMessages.map((m) => m.content), ["earlier"]);
  assert.deepEqual(
    context.semanticMatches.map((m) => [m.content, m.similarity, m.foundBy, m.score]),
    [["similar", 0.8, ["full_text", "vector"], 0.0325]],
  );
  assert.deepEqual(context.workingMemory, { facts: ["likes tea"] });
  assert.equal(context.recentMessages[0].createdAt, "2026-01-01T00:00:00.000Z");
});

const TURN = {
  caller: USER,
  sessionId: "s",
  userMessage: { content: "hi", embedding: hashingVector("hi"), embeddingModel: "hashing-v1" },
  assistantMessage: { content: "hello" },
  events: [{
    source: "loop" as const,
    tool: "t",
    input: { a: 1 },
    output: "ok",
    success: true,
    durationMs: 2,
    requestId: "r",
    runId: "0d9c8b7a-0000-4000-8000-000000000000",
  }],
  runId: "0d9c8b7a-0000-4000-8000-000000000000",
};

Deno.test("saveTurn sends the messages to save_chat_turn as the user, and writes the audit rows as the server", async () => {
  const { fetch, requests } = recordingFetch(() => json("5c3b2a10-0000-4000-8000-000000000000"));
  const { sql, statements } = recordingSql();
  const store = new SupabaseConversationStore({
    url: URL_,
    publishableKey: "anon-key",
    fetch,
    sql,
  });
  await store.saveTurn(TURN);
  assert.equal(requests.length, 1);
  assert.equal(requests[0].url, `${URL_}/rest/v1/rpc/save_chat_turn`);
  assert.equal(requests[0].headers.authorization, `Bearer ${USER.token}`);
  const body = requests[0].body as Record<string, unknown>;
  assert.equal(body.p_caller, USER.owner);
  assert.equal(body.p_user_content, "hi");
  assert.equal(body.p_assistant_content, "hello");
  assert.equal(body.p_text_config, "simple");
  assert.equal("p_events" in body, false, "nothing PostgREST exposes writes audit rows");
  assert.equal(statements.length, 1);
  assert.match(statements[0].text, /write_mcp_events/);
  const [userId, owner, source, session, rows] = statements[0].params;
  assert.deepEqual([userId, owner, source, session], [USER.userId, USER.owner, "loop", "s"]);
  assert.deepEqual(JSON.parse(rows as string), [
    {
      request_id: "r",
      tool: "t",
      input: { a: 1 },
      output: "ok",
      success: true,
      error: null,
      duration_ms: 2,
      run_id: TURN.events[0].runId,
    },
  ]);
});

Deno.test("saveTurn writes no audit rows for a turn that was not stored (stored before, or erased)", async () => {
  const { fetch } = recordingFetch(() => json(null));
  const { sql, statements } = recordingSql();
  const store = new SupabaseConversationStore({
    url: URL_,
    publishableKey: "anon-key",
    fetch,
    sql,
  });
  await store.saveTurn({ ...TURN, runId: "5c3b2a10-0000-4000-8000-0000000000aa" });
  assert.deepEqual(statements, []);
});

Deno.test("anonymous callers go through the secret key, or are refused without one", async () => {
  const { fetch, requests } = recordingFetch(() => json([]));
  const store = new SupabaseConversationStore({
    url: URL_,
    publishableKey: "anon-key",
    secretKey: "service-key",
    fetch,
    sql: noSql,
  });
  await store.loadContext({
    caller: ANONYMOUS,
    sessionId: "s",
    embedding: [1],
    embeddingModel: "m",
  });
  assert.equal(requests[0].headers.apikey, "service-key");
  const noSecret = new SupabaseConversationStore({
    url: URL_,
    publishableKey: "anon-key",
    fetch,
    sql: noSql,
  });
  await assert.rejects(
    noSecret.loadContext({
      caller: ANONYMOUS,
      sessionId: "s",
      embedding: [1],
      embeddingModel: "m",
    }),
    (e) => isAppError(e) && e.code === "UNAUTHORIZED",
  );
});

Deno.test("an API error becomes DB_UNAVAILABLE with PostgREST's message", async () => {
  const { fetch } = recordingFetch(() =>
    json({
      code: "42883",
      message: "function load_chat_context does not exist",
      details: null,
      hint: null,
    }, 404)
  );
  const store = new SupabaseConversationStore({
    url: URL_,
    publishableKey: "anon-key",
    fetch,
    sql: noSql,
  });
  await assert.rejects(
    store.loadContext({ caller: USER, sessionId: "s", embedding: [1], embeddingModel: "m" }),
    (e) => {
      assert.ok(isAppError(e));
      assert.equal(e.code, "DB_UNAVAILABLE");
      assert.match(e.message, /function load_chat_context does not exist \(42883\)/);
      return true;
    },
  );
});
