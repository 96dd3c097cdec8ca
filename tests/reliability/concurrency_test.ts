/** Concurrency: nothing stored twice, nothing lost, under parallel requests. */
import assert from "node:assert/strict";
import { inMemoryClient, mcpApp } from "../support/mcp_fixture.ts";
import { sharedPglite } from "../support/pglite.ts";
import { post, validBody } from "../support/test_app.ts";

Deno.test("200 parallel loop requests on 20 sessions store every message exactly once", async () => {
  // One caller sends 200 requests at once: the per-caller limits are not under test here.
  const app = await mcpApp({ MCP_LOOP_CALLER_CONCURRENCY: "0" });
  const run = crypto.randomUUID();
  const sessions = Array.from({ length: 20 }, (_, i) => `concurrency-${run}-${i}`);
  const responses = await Promise.all(
    Array.from(
      { length: 200 },
      (_, i) => app.fetch(post(validBody(`message ${i} of run ${run}`, sessions[i % 20]))),
    ),
  );
  assert.deepEqual(responses.map((r) => r.status), Array(200).fill(200));
  await Promise.all(responses.map((r) => r.body?.cancel()));
  const stored = await (await sharedPglite()).query<
    { session_id: string; content: string; role: string }
  >(
    "select session_id, content, role from chat_messages where session_id = any($1::text[])",
    [`{${sessions.join(",")}}`],
  );
  const user = stored.filter((r) => r.role === "user");
  assert.equal(user.length, 200, "every user message stored");
  assert.equal(new Set(user.map((r) => r.content)).size, 200, "none stored twice");
  for (const session of sessions) {
    assert.equal(user.filter((r) => r.session_id === session).length, 10, session);
  }
  assert.equal(stored.filter((r) => r.role === "assistant").length, 200, "every reply stored");
});

Deno.test("100 parallel refinement decisions across 10 loops keep every score", async () => {
  const app = await mcpApp();
  const client = await inMemoryClient(app, { userId: null, owner: `key:${crypto.randomUUID()}` });
  const loops: string[] = [];
  for (let i = 0; i < 10; i++) {
    const created = await client.callTool({
      name: "initialize_refinement_loop",
      arguments: { loop_type: "build_code" },
    }) as {
      structuredContent: { id: string };
    };
    loops.push(created.structuredContent.id);
  }
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      client.callTool({
        name: "decide_loop_next_action",
        arguments: { loop_id: loops[i % 10], current_score: i % 90 },
      }) as Promise<{ isError?: boolean }>),
  );
  assert.equal(results.filter((r) => r.isError).length, 0);
  for (const [index, id] of loops.entries()) {
    const status = await client.callTool({
      name: "get_loop_status",
      arguments: { loop_id: id },
    }) as {
      structuredContent: { score_history: number[] };
    };
    const expected = Array.from({ length: 10 }, (_, k) => (index + 10 * k) % 90).sort((a, b) =>
      a - b
    );
    assert.deepEqual(
      [...status.structuredContent.score_history].sort((a, b) => a - b),
      expected,
      id,
    );
  }
  await client.close();
});
