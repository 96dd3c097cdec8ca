/**
 * The approval store contract, run against every implementation (the
 * in-memory fake and SQL on PGlite), so the fake cannot drift from the database.
 */
import assert from "node:assert/strict";
import type { Caller } from "../../shared/ports.ts";
import { type ApprovalStore, callDigest } from "../../shared/runs/approval_store.ts";

/** Registers the suite for one store. */
export function approvalStoreSuite(
  name: string,
  makeStore: () => Promise<ApprovalStore>,
): void {
  const caller = (): Caller => ({ userId: null, owner: `key:approvals-${crypto.randomUUID()}` });
  const now = new Date("2030-01-01T00:00:00Z");
  const later = (ms: number) => new Date(now.getTime() + ms);

  Deno.test(`${name}: an approval is answered once; a replay finds it answered`, async () => {
    const store = await makeStore();
    const who = caller();
    const call = { tool: "delete_invoice", argsDigest: await callDigest({ id: "inv-1" }) };
    const id = await store.create(who, { ...call, expiresAt: later(60_000) });
    assert.deepEqual(await store.answer(who, id, { ...call, approved: true, now }), {
      kind: "won",
    });
    for (const approved of [true, false]) {
      assert.deepEqual(await store.answer(who, id, { ...call, approved, now }), {
        kind: "answered",
        status: "approved",
      });
    }
    const declined = await store.create(who, { ...call, expiresAt: later(60_000) });
    assert.deepEqual(await store.answer(who, declined, { ...call, approved: false, now }), {
      kind: "won",
    });
    assert.deepEqual(await store.answer(who, declined, { ...call, approved: true, now }), {
      kind: "answered",
      status: "declined",
    });
  });

  Deno.test(`${name}: racing answers: exactly one wins`, async () => {
    const store = await makeStore();
    const who = caller();
    const call = { tool: "pay", argsDigest: await callDigest({ amount: 500 }) };
    const id = await store.create(who, { ...call, expiresAt: later(60_000) });
    const answers = await Promise.all(
      [1, 2, 3].map(() => store.answer(who, id, { ...call, approved: true, now })),
    );
    assert.equal(answers.filter((a) => a.kind === "won").length, 1, JSON.stringify(answers));
  });

  Deno.test(`${name}: another call, another caller or a lapsed approval never wins`, async () => {
    const store = await makeStore();
    const who = caller();
    const call = { tool: "delete_invoice", argsDigest: await callDigest({ id: "inv-2" }) };
    const id = await store.create(who, { ...call, expiresAt: later(60_000) });
    const other = { tool: "delete_invoice", argsDigest: await callDigest({ id: "inv-3" }) };
    assert.deepEqual(await store.answer(who, id, { ...other, approved: true, now }), {
      kind: "unknown",
    });
    assert.deepEqual(
      await store.answer(who, id, { ...call, tool: "pay", approved: true, now }),
      { kind: "unknown" },
    );
    assert.deepEqual(await store.answer(caller(), id, { ...call, approved: true, now }), {
      kind: "unknown",
    });
    assert.deepEqual(await store.answer(who, "not-a-uuid", { ...call, approved: true, now }), {
      kind: "unknown",
    });
    const lapsed = await store.answer(who, id, { ...call, approved: true, now: later(60_000) });
    assert.deepEqual(lapsed, { kind: "lapsed", expiresAt: later(60_000).toISOString() });
    // Nothing above used it up: the right call, in time, still wins.
    assert.deepEqual(await store.answer(who, id, { ...call, approved: true, now }), {
      kind: "won",
    });
  });

  Deno.test(`${name}: the digest ignores key order and tells values apart`, async () => {
    assert.equal(
      await callDigest({ a: 1, b: { c: [1, 2], d: "x" } }),
      await callDigest({ b: { d: "x", c: [1, 2] }, a: 1 }),
    );
    assert.notEqual(await callDigest({ a: [1, 2] }), await callDigest({ a: [2, 1] }));
    assert.notEqual(await callDigest({ a: "1" }), await callDigest({ a: 1 }));
  });

  Deno.test(`${name}: a run's approvals carry its run and step; answers lists the answered ones with their reasons`, async () => {
    const store = await makeStore();
    const who = caller();
    const runId = crypto.randomUUID();
    const call = { tool: "pay", argsDigest: await callDigest({ amount: 500 }) };
    const first = await store.create(who, { ...call, expiresAt: later(60_000), runId, step: 0 });
    const second = await store.create(who, { ...call, expiresAt: later(60_000), runId, step: 1 });
    const known = crypto.randomUUID();
    assert.equal(
      await store.create(who, { ...call, id: known, expiresAt: later(60_000), runId, step: 2 }),
      known,
      "a record made with a known id keeps it",
    );
    await store.answer(who, first, { ...call, approved: false, reason: "too much", now });
    await store.answer(who, known, { ...call, approved: true, now });
    const answers = await store.answers(who, [first, second, known, "not-a-uuid"]);
    assert.deepEqual(
      Object.fromEntries(answers),
      { [first]: { approved: false, reason: "too much" }, [known]: { approved: true } },
    );
    assert.equal((await store.answers(caller(), [first, known])).size, 0, "another caller's");
  });
}
