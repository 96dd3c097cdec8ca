/**
 * Working memory end to end, offline (hashing embedder, heuristic planner),
 * through the real app on PGlite and on Postgres when one is given: "remember
 * that …" keeps a fact, a later turn in another session answers from it,
 * "forget …" drops it; another user never sees it; MCP reads it as a resource.
 */
import assert from "node:assert/strict";
import { type App, createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import type { Sql } from "../../shared/ports.ts";
import { hs256Token, SECRET, userClaims } from "../auth/test_tokens.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { sharedPglite } from "../support/pglite.ts";
import { onPgliteAndPostgres } from "../support/postgres.ts";
import { post, validBody } from "../support/test_app.ts";

function appOn(sql: Sql): App {
  return createApp(
    loadConfig({ MCP_LOOP_LOG_LEVEL: "silent", SUPABASE_JWT_SECRET: SECRET }),
    { sql, logger: new RecordingLogger() },
  );
}

async function say(app: App, authorization: string, content: string, sessionId: string) {
  const res = await app.fetch(post(validBody(content, sessionId), { headers: { authorization } }));
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.data;
}

async function readMemory(app: App, authorization: string) {
  const res = await app.fetch(
    new Request("http://localhost/mcp-loop/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "resources/read",
        params: { uri: "mcp-loop://memory" },
      }),
    }),
  );
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return JSON.parse(body.result.contents[0].text).memory;
}

function roundTrip(name: string, open: () => Promise<Sql | undefined>, ignore: boolean) {
  Deno.test({
    name: `${name}: remember, a later turn in another session answers from it, forget`,
    ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const app = appOn((await open())!);
      // Users of its own: Postgres keeps what earlier runs stored.
      const [idA, idB] = [crypto.randomUUID(), crypto.randomUUID()];
      const a = `Bearer ${await hs256Token(userClaims(idA))}`;
      const b = `Bearer ${await hs256Token(userClaims(idB))}`;
      const tag = crypto.randomUUID().slice(0, 8);
      try {
        const kept = await say(app, a, "Remember that my favourite colour is teal.", `wm-${tag}-1`);
        assert.deepEqual(kept.plan.map((step: { tool: string }) => step.tool), [
          "remember",
          "finalize_summary",
        ]);
        assert.deepEqual(kept.intermediateResults[0].output.memory.facts, [
          "my favourite colour is teal",
        ]);

        const asked = await say(app, a, "What is my favourite colour?", `wm-${tag}-2`);
        assert.deepEqual(asked.context.workingMemory, { facts: ["my favourite colour is teal"] });
        assert.match(asked.summaryMessage, /teal/);
        assert.match(asked.summaryMessage, /You asked me to remember/);

        const other = await say(app, b, "What is my favourite colour?", `wm-${tag}-2`);
        assert.doesNotMatch(JSON.stringify(other), /teal/);
        assert.deepEqual(await readMemory(app, a), { facts: ["my favourite colour is teal"] });
        assert.deepEqual(await readMemory(app, b), {});

        const forgot = await say(app, a, "Forget my favourite colour", `wm-${tag}-3`);
        assert.deepEqual(forgot.plan.map((step: { tool: string }) => step.tool), [
          "forget",
          "finalize_summary",
        ]);
        assert.deepEqual(forgot.intermediateResults[0].output.forgotten, [
          "my favourite colour is teal",
        ]);
        const after = await say(app, a, "What is my favourite colour?", `wm-${tag}-4`);
        assert.deepEqual(after.context.workingMemory, { facts: [] });
        assert.doesNotMatch(after.summaryMessage, /teal/);
        assert.deepEqual(await readMemory(app, a), { facts: [] });
      } finally {
        await app.close();
      }
    },
  });
}

await onPgliteAndPostgres(roundTrip, sharedPglite);
