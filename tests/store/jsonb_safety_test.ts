/**
 * Every value that reaches a jsonb column goes through `toJsonb`, which must
 * make any JavaScript value acceptable to Postgres: NUL and lone surrogates in
 * keys and strings at any depth, bigints, cycles, sizes. Checked against a
 * real Postgres (PGlite) on generated hostile objects, through each writer:
 * the audit log (MCP calls), the turn store (loop steps) and the run store
 * (requests, checkpoints, events).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { AuditEvent, Caller } from "../../shared/ports.ts";
import { SqlAuditLog } from "../../shared/store/sql_audit_log.ts";
import { SqlConversationStore } from "../../shared/store/sql_conversation_store.ts";
import { toJsonb } from "../../shared/store/sql_values.ts";
import { SqlRunStore } from "../../shared/store/sql_run_store.ts";
import { initialCheckpoint } from "../../shared/runs/checkpoint.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { sharedPglite } from "../support/pglite.ts";

/** Strings of any UTF-16 code units: NUL, lone surrogates, control characters. */
const hostileString = fc.string({ unit: "binary", maxLength: 12 });
const hostileKey = fc.oneof(
  hostileString,
  fc.constantFrom("\u0000", "\ud800", "a\udfffb", "__proto__", "constructor", ""),
);
/** Nested objects and arrays whose keys and values are hostile. */
const hostileValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    hostileString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.bigInt(),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(hostileKey, tie("value"), { maxKeys: 4 }),
  ),
})).value;

const caller = (name: string): Caller => ({ userId: null, owner: `key:jsonb-${name}` });

Deno.test("toJsonb's text is accepted by Postgres as jsonb for any hostile value", async () => {
  const sql = await sharedPglite();
  await fc.assert(
    fc.asyncProperty(hostileValue, async (value) => {
      const [row] = await sql.query<{ ok: boolean }>(
        "select jsonb_typeof($1::jsonb) is not null as ok",
        [toJsonb(value)],
      );
      assert.equal(row.ok, true);
    }),
    { numRuns: 300 },
  );
});

Deno.test("toJsonb keeps clean values as they are, and cleans keys as well as strings", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const text = JSON.stringify(value);
      if (!/\\u0000|\\ud[89a-f]/i.test(text)) assert.equal(toJsonb(value), text);
    }),
  );
  assert.equal(
    toJsonb({ "a\u0000": { "\ud800": ["x\u0000"] } }),
    '{"a\uFFFD":{"\uFFFD":["x\uFFFD"]}}',
  );
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.match(toJsonb(cyclic), /unserializable/);
  // A preview cut inside a surrogate pair is cleaned too.
  const preview = JSON.parse(toJsonb({ s: "a".repeat(998) + "😀".repeat(10) }, 100)).preview;
  assert.ok(preview.isWellFormed());
});

Deno.test("an MCP call whose arguments hold a hostile key is audited, and so is the call batched with it", async () => {
  const sql = await sharedPglite();
  const audit = new SqlAuditLog(sql, { maxDelayMs: 1 });
  const who = caller(crypto.randomUUID());
  await fc.assert(
    fc.asyncProperty(hostileValue, hostileValue, async (input, output) => {
      const event = (tool: string, args: unknown): AuditEvent => ({
        source: "mcp",
        tool,
        input: args,
        output,
        success: true,
        durationMs: 1,
      });
      // A hostile call and a state-changing one, in one batch.
      await Promise.all([
        audit.record(who, [event("hostile\u0000tool", input)]),
        audit.record(who, [event("initialize_refinement_loop", { loop_type: "spec" })]),
      ]);
    }),
    { numRuns: 60 },
  );
  const [row] = await sql.query<{ n: number }>(
    "select count(*)::int as n from public.mcp_events where caller = $1",
    [who.owner],
  );
  assert.equal(row.n, 120);
});

Deno.test("a loop turn whose tool output has hostile keys is stored with its audit rows", async () => {
  const sql = await sharedPglite();
  const store = new SqlConversationStore(sql);
  const who = caller(crypto.randomUUID());
  await fc.assert(
    fc.asyncProperty(hostileValue, hostileString, async (output, reply) => {
      await store.saveTurn({
        caller: who,
        sessionId: "jsonb-turns",
        userMessage: { content: "hi", embedding: [1], embeddingModel: "test" },
        assistantMessage: { content: reply },
        events: [{
          source: "loop",
          tool: "remote__search",
          input: { q: "x" },
          output,
          success: true,
          durationMs: 1,
        }],
      });
    }),
    { numRuns: 60 },
  );
  const [row] = await sql.query<{ messages: number; events: number }>(
    `select (select count(*)::int from public.chat_messages where owner = $1) as messages,
            (select count(*)::int from public.mcp_events where caller = $1) as events`,
    [who.owner],
  );
  assert.deepEqual(row, { messages: 120, events: 60 });
});

Deno.test("a run whose request, checkpoint or events hold hostile keys and strings is stored and read back", async () => {
  const sql = await sharedPglite();
  const runs = new SqlRunStore(sql);
  const who = caller(crypto.randomUUID());
  await fc.assert(
    fc.asyncProperty(hostileValue, hostileValue, async (output, data) => {
      const checkpoint = initialCheckpoint({ maxRounds: 1, budgetMs: 1 });
      const run = await runs.create(who, {
        sessionId: "jsonb-runs",
        request: loopRequest("hi", { context: { odd: data } }),
        checkpoint,
        leaseMs: 1_000,
        events: [{ type: "hostile\u0000", data }],
      });
      const result = { tool: "t\ud800", input: data, output, success: true, durationMs: 1 };
      const saved = await runs.save(who, run.id, {
        from: ["running"],
        version: run.version,
        status: "completed",
        checkpoint: { ...checkpoint, results: [result] },
        events: [{ type: "result", data: output }],
      });
      assert.ok(saved);
      assert.equal((await runs.get(who, run.id))?.checkpoint.results.length, 1);
    }),
    { numRuns: 60 },
  );
});
