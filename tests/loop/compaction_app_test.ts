/**
 * Compaction in the app, on PGlite: a long session's older messages end up
 * in its stored summary, which the planner sees with the recent messages.
 */
import assert from "node:assert/strict";
import type { PlanInput } from "../../shared/ports.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { mcpApp } from "../support/mcp_fixture.ts";
import { sharedPglite } from "../support/pglite.ts";

Deno.test("a long session on PGlite is compacted: the summary is stored and the planner sees it", async () => {
  const planner = new ScriptedPlanner([]);
  const app = await mcpApp({}, { planner }, {
    compaction: { afterTokens: 60 },
    memory: { recentLimit: 4 },
  });
  const sessionId = `long-${crypto.randomUUID()}`;
  try {
    for (let i = 0; i < 12; i++) {
      await app.run({
        mode: "general",
        sessionId,
        messages: [{ role: "user", content: `Turn ${i}: the Porto offsite needs ${i + 3} rooms.` }],
      });
    }
    const [row] = await (await sharedPglite()).query<{ summary: string; covered_messages: number }>(
      "select summary, covered_messages from public.session_summaries where session_id = $1",
      [sessionId],
    );
    assert.ok(row, "a summary is stored");
    assert.match(row.summary, /Porto offsite/);
    const last = planner.calls.at(-1) as PlanInput;
    const summary = last.context.sessionSummary as { summary: string; coveredMessages: number };
    assert.equal(summary.summary, row.summary);
    assert.ok((last.context.recentMessages as unknown[]).length <= 4);
  } finally {
    await app.close();
  }
});
