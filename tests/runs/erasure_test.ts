/**
 * Deletion wins over work in flight, on PGlite with the migrations: a
 * session deleted — or everything of the caller — while one of its runs
 * executes a step leaves nothing of that run behind once the step ends (no
 * message, no run, no audit row with its content); a session deleted while
 * its first compaction is being written keeps no summary; a run going on in
 * the background when its session is deleted stores nothing either.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import type { App } from "../../shared/app/app.ts";
import type { RuntimeInfo } from "../../shared/app/runtime.ts";
import { compactSession } from "../../shared/loop/compaction.ts";
import { SqlConversationStore } from "../../shared/store/sql_conversation_store.ts";
import { SqlSessionSummaryStore } from "../../shared/store/sql_session_summary_store.ts";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { withFakeDeadlines } from "../support/fake_clock.ts";
import { mcpApp } from "../support/mcp_fixture.ts";
import { sharedPglite } from "../support/pglite.ts";

/** A tool that notes a secret and holds until released (or aborted), counting its starts. */
function holdingTool() {
  let starts = 0;
  const waiting: { n: number; resolve: () => void }[] = [];
  let release = Promise.withResolvers<void>();
  const tool = defineTool({
    name: "note_secret",
    description: "Notes a secret, slowly",
    argsSchema: z.object({ secret: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: false },
    run: ({ args, signal }) =>
      new Promise((resolve, reject) => {
        starts += 1;
        for (const waiter of waiting.filter((w) => w.n <= starts)) waiter.resolve();
        release.promise.then(() => resolve({ noted: args.secret }));
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      }),
  });
  return {
    tool,
    /** Resolves once the tool has started `n` times in all. */
    started: (n = 1) =>
      n <= starts
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.push({ n, resolve })),
    release: () => {
      release.resolve();
      release = Promise.withResolvers<void>();
    },
  };
}

/** What the database holds of a session, and whether any audit row still carries `secret`. */
async function leftOf(sessionId: string, secret: string) {
  const sql = await sharedPglite();
  const count = async (table: string) =>
    (await sql.query<{ count: number }>(
      `select count(*)::int as count from public.${table} where session_id = $1`,
      [sessionId],
    ))[0].count;
  const [{ leaked }] = await sql.query<{ leaked: number }>(
    `select count(*)::int as leaked from public.mcp_events
     where session_id = $1 and (input::text like $2 or output::text like $2)`,
    [sessionId, `%${secret}%`],
  );
  return {
    messages: await count("chat_messages"),
    runs: await count("mcp_runs"),
    summaries: await count("session_summaries"),
    leaked,
  };
}

async function del(app: App, path: string): Promise<number> {
  const res = await app.fetch(
    new Request(`http://localhost/mcp-loop${path}`, { method: "DELETE" }),
  );
  await res.body?.cancel();
  return res.status;
}

for (
  const [what, path] of [
    ["one session", (id: string) => `/sessions/${id}`],
    ["everything of the caller", () => "/data?confirm=true"],
  ] as const
) {
  Deno.test(`deleting ${what} while a run executes a step: once the step ends, nothing of the run is stored`, async () => {
    const holding = holdingTool();
    const secret = `secret-${crypto.randomUUID()}`;
    const app = await mcpApp({}, {
      tools: [holding.tool],
      planner: new ScriptedPlanner([
        { tool: "note_secret", args: { secret } },
        { tool: "finalize_summary", args: {} },
      ]),
    });
    try {
      const request = loopRequest(`note ${secret}`);
      const running = app.run(request).then(() => "finished", (error) => error.code);
      await holding.started();
      assert.equal(await del(app, path(request.sessionId)), 200);
      holding.release();
      // The run cannot write its end: its row went with the deletion.
      assert.equal(await running, "RUN_STATE");
      assert.deepEqual(await leftOf(request.sessionId, secret), {
        messages: 0,
        runs: 0,
        summaries: 0,
        leaked: 0,
      });
    } finally {
      await app.close();
    }
  });
}

Deno.test("deleting a session while its first compaction is being written keeps no summary", async () => {
  const sql = await sharedPglite();
  const conversations = new SqlConversationStore(sql);
  const summaries = new SqlSessionSummaryStore(sql);
  const caller = { userId: null, owner: `key:erase-${crypto.randomUUID().slice(0, 8)}` };
  const sessionId = `erase-compaction-${crypto.randomUUID()}`;
  for (let i = 0; i < 8; i++) {
    const content = `Turn ${i}: ${"a long note about the quarterly budget ".repeat(20)}`;
    await conversations.saveTurn({
      caller,
      sessionId,
      userMessage: { content, embedding: hashingVector(content), embeddingModel: "hashing-v1" },
      assistantMessage: { content: `reply ${i}` },
      events: [],
    });
  }
  const summarizing = Promise.withResolvers<void>();
  const finishSummary = Promise.withResolvers<void>();
  const compacting = compactSession({
    deps: {
      store: summaries,
      options: { afterTokens: 50, summaryTokens: 100, keepRecent: 2 },
      summarize: async () => {
        summarizing.resolve();
        await finishSummary.promise;
        return "The user kept notes about the quarterly budget.";
      },
    },
    caller,
    sessionId,
  });
  await summarizing.promise;
  await sql.query("select * from public.delete_chat_session($1, $2)", [sessionId, caller.owner]);
  finishSummary.resolve();
  assert.equal(await compacting, undefined, "no summary came of it");
  assert.equal(await summaries.load(caller, sessionId, 2), undefined);
});

Deno.test("a run going on in the background when its session is deleted stores nothing", () =>
  withFakeDeadlines(async (clock) => {
    const holding = holdingTool();
    const secret = `secret-${crypto.randomUUID()}`;
    const background: Promise<unknown>[] = [];
    const runtime: RuntimeInfo = { kind: "local", keepAlive: (work) => background.push(work) };
    const app = await mcpApp({ MCP_LOOP_DEADLINE_MS: "150" }, {
      tools: [holding.tool],
      planner: new ScriptedPlanner(() => [{ tool: "note_secret", args: { secret } }]),
      runtime,
    }, { runs: { backgroundContinuations: 1 } });
    try {
      const request = loopRequest(`note ${secret}`);
      // The first try holds until its deadline: the run pauses, then goes on by itself.
      const pausing = app.run(request);
      await holding.started(1);
      await clock.advance(150);
      const paused = await pausing;
      assert.equal(paused.data.stopReason, "deadline");
      await holding.started(2); // the first try's, then the background continuation's
      assert.equal(await del(app, `/sessions/${request.sessionId}`), 200);
      holding.release();
      await Promise.allSettled(background);
      assert.deepEqual(await leftOf(request.sessionId, secret), {
        messages: 0,
        runs: 0,
        summaries: 0,
        leaked: 0,
      });
    } finally {
      await app.close();
    }
  }));
