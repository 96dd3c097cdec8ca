/**
 * SqlAuditLog writes with group commit: one write in flight at a time, rows
 * that arrive meanwhile go out together in the next one (a batch when it is
 * full or its oldest row has waited the delay), one INSERT per caller in each
 * write, and a failed INSERT rejects only its own rows.
 * The database is a recording mock of the `Sql` port whose writes finish when
 * the test says so.
 */
import assert from "node:assert/strict";
import type { AuditEvent, Caller, Sql, SqlTx } from "../../shared/ports.ts";
import { SqlAuditLog } from "../../shared/store/sql_audit_log.ts";

interface Write {
  owner: string;
  tools: string[];
  finish: (error?: Error) => void;
}

/** A mock `Sql` whose `write_mcp_events` calls wait until `finish` is called. */
function recordingSql(): {
  sql: Sql;
  writes: Write[];
  waitForWrites: (n: number) => Promise<void>;
} {
  const writes: Write[] = [];
  let wrote = () => {};
  const query = <T>(text: string, params: unknown[] = []): Promise<T[]> => {
    assert.match(text, /write_mcp_events/);
    const [, owner, , , rows] = params as [string | null, string, string, string | null, string];
    return new Promise<T[]>((resolve, reject) => {
      writes.push({
        owner,
        tools: (JSON.parse(rows) as { tool: string }[]).map((row) => row.tool),
        finish: (error) => error ? reject(error) : resolve([]),
      });
      wrote();
    });
  };
  const sql: Sql = {
    query,
    exec: () => Promise.resolve(),
    transaction: <T>(fn: (tx: SqlTx) => Promise<T>) => fn(sql),
    close: () => Promise.resolve(),
  };
  /** Waits for the `n`th write (a minute at most: only a broken log takes that long). */
  const waitForWrites = async (n: number) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const giveUp = new Promise<void>((resolve) => timer = setTimeout(resolve, 60_000));
    let waited = false;
    while (writes.length < n && !waited) {
      const next = new Promise<void>((resolve) => wrote = resolve);
      waited = await Promise.race([next.then(() => false), giveUp.then(() => true)]);
    }
    clearTimeout(timer);
    assert.equal(writes.length, n, `expected ${n} writes, saw ${writes.length}`);
  };
  return { sql, writes, waitForWrites };
}

const alice: Caller = { owner: "key:alice", userId: null };
const bob: Caller = { owner: "key:bob", userId: null };
const event = (tool: string): AuditEvent => ({
  source: "mcp",
  tool,
  input: {},
  success: true,
  durationMs: 1,
});

Deno.test("rows arriving during a write wait for it and then go out together, one INSERT per caller", async () => {
  const { sql, writes, waitForWrites } = recordingSql();
  const audit = new SqlAuditLog(sql, { maxDelayMs: 1 });
  const first = audit.record(alice, [event("a1")]);
  await waitForWrites(1);
  assert.deepEqual(writes[0].tools, ["a1"]);

  // Meanwhile, several batch delays apart: three more rows from two callers.
  const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
  const later = [audit.record(alice, [event("a2")])];
  await pause();
  later.push(audit.record(bob, [event("b1")]));
  await pause();
  later.push(audit.record(alice, [event("a3")]));
  await pause();
  assert.equal(writes.length, 1, "no second write while the first is in flight");

  writes[0].finish();
  await first;
  await waitForWrites(3);
  const byOwner = Object.fromEntries(writes.slice(1).map((w) => [w.owner, w.tools]));
  assert.deepEqual(byOwner, { "key:alice": ["a2", "a3"], "key:bob": ["b1"] });
  for (const write of writes.slice(1)) write.finish();
  await Promise.all(later);
});

Deno.test("a failed INSERT rejects only its caller's rows, and flush waits for every queued row", async () => {
  const { sql, writes, waitForWrites } = recordingSql();
  const audit = new SqlAuditLog(sql, { maxDelayMs: 1 });
  const fromAlice = audit.record(alice, [event("a1")]);
  const fromBob = audit.record(bob, [event("b1")]);
  await waitForWrites(2);
  const failed = writes.find((w) => w.owner === "key:alice")!;
  const ok = writes.find((w) => w.owner === "key:bob")!;
  failed.finish(new Error("disk full"));
  ok.finish();
  await assert.rejects(fromAlice, /the database failed the statement/);
  await fromBob;

  const queued = audit.record(alice, [event("a2")]);
  let flushed = false;
  const flushing = audit.flush().then(() => flushed = true);
  await waitForWrites(3);
  assert.equal(flushed, false, "flush waits for the write it started");
  writes[2].finish();
  await flushing;
  await queued;
});

Deno.test("a full batch is written at once; the rest waits for its delay, not for the write's end", async () => {
  const { sql, writes, waitForWrites } = recordingSql();
  const audit = new SqlAuditLog(sql, { maxBatch: 2, maxDelayMs: 60_000 });
  const recorded = ["a1", "a2", "a3"].map((tool) => audit.record(alice, [event(tool)]));
  await waitForWrites(1);
  assert.deepEqual(writes[0].tools, ["a1", "a2"]);
  writes[0].finish();
  await Promise.all(recorded.slice(0, 2));
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(writes.length, 1, "a3 has not waited its 60 s: no write of one row yet");

  const flushing = audit.flush();
  await waitForWrites(2);
  assert.deepEqual(writes[1].tools, ["a3"]);
  writes[1].finish();
  await flushing;
  await recorded[2];
});

Deno.test("when a group's INSERT fails, each call's rows are tried alone: one bad row costs no other call its rows", async () => {
  const { sql, writes, waitForWrites } = recordingSql();
  const audit = new SqlAuditLog(sql, { maxDelayMs: 1 });
  const good = audit.record(alice, [event("good")]);
  const bad = audit.record(alice, [event("bad")]);
  await waitForWrites(1);
  assert.deepEqual(writes[0].tools, ["good", "bad"]);
  writes[0].finish(new Error("invalid input syntax"));
  await waitForWrites(3);
  for (const write of writes.slice(1)) {
    write.finish(write.tools[0] === "bad" ? new Error("invalid input syntax") : undefined);
  }
  await good;
  await assert.rejects(bad, /the database failed the statement/);
});
