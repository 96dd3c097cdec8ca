/**
 * The function with `MCP_LOOP_STORE=supabase`: conversations, working memory
 * and session summaries all go through Supabase's API (PostgREST's RPC over
 * the Supabase-shaped PGlite, tests/fakes/postgrest_rpc.ts) — a long session
 * is compacted there as it is on the SQL store.
 */
import assert from "node:assert/strict";
import { createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import { postgrestRpc } from "../fakes/postgrest_rpc.ts";
import { MemoryRunStore } from "../fakes/memory_run_store.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { migratedSupabasePglite } from "../support/supabase_shape.ts";
import { post, validBody } from "../support/test_app.ts";

const KEYS = { publishableKey: "sb_publishable_app", secretKey: "sb_secret_app" };

Deno.test("with MCP_LOOP_STORE=supabase a long session is compacted through the API", async () => {
  const { sql } = await migratedSupabasePglite();
  const api = postgrestRpc(sql, { ...KEYS, users: () => undefined });
  const config = loadConfig({
    MCP_LOOP_DATA_DIR: "memory://",
    MCP_LOOP_STORE: "supabase",
    SUPABASE_URL: "https://abcdefghijklmnopqrst.supabase.co",
    SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: KEYS.publishableKey }),
    SUPABASE_SECRET_KEYS: JSON.stringify({ default: KEYS.secretKey }),
    MCP_LOOP_API_KEYS: "alice=alice-key-0123456789abcdef",
  }, { options: { memory: { recentLimit: 2 }, compaction: { afterTokens: 40 } } });
  const app = createApp(config, {
    sql,
    runs: new MemoryRunStore(),
    logger: new RecordingLogger(),
    fetch: api.fetch,
  });
  try {
    const session = `app-${crypto.randomUUID()}`;
    const headers = { authorization: "Bearer alice-key-0123456789abcdef" };
    let last: Record<string, unknown> = {};
    for (let i = 0; i < 5; i++) {
      const res = await app.fetch(post(
        validBody(
          `Turn ${i}: the Porto offsite budget is ${(i + 1) * 250} euros, catering included.`,
          session,
        ),
        { headers },
      ));
      assert.equal(res.status, 200, await res.clone().text());
      last = await res.json();
    }
    const context = (last.data as Record<string, unknown>).context as Record<string, unknown>;
    const summary = context.sessionSummary as { summary: string; coveredMessages: number };
    assert.ok(summary, `a summary in the context: ${JSON.stringify(Object.keys(context))}`);
    assert.match(summary.summary, /Porto offsite budget/);
    assert.ok(summary.coveredMessages >= 2);
    for (
      const fn of [
        "load_chat_context",
        "save_chat_turn",
        "load_session_summary",
        "save_session_summary",
      ]
    ) {
      assert.ok(api.calls.includes(fn), `${fn} was called through the API`);
    }
  } finally {
    await app.close();
  }
});
