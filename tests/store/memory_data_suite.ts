/**
 * Working memory, forgetting and export, run against every store (the fake,
 * the SQL stores on PGlite and on Postgres): versioned writes, the memory a
 * turn loads, and deletion and export that reach only the caller's rows.
 */
import assert from "node:assert/strict";
import { ANONYMOUS, type Caller } from "../../shared/ports.ts";
import { readExport } from "../../shared/store/caller_export.ts";
import {
  load,
  say,
  type StoreFactory,
  type SuiteOptions,
  suiteTest,
  user,
} from "./conversation_store_suite.ts";

const event = (tool: string, sessionId: string) => ({
  source: "loop" as const,
  tool,
  input: { secret: `${tool} input` },
  output: { said: `${tool} output` },
  success: false,
  error: `${tool} failed on private text`,
  durationMs: 1,
  sessionId,
});

/** Registers the suite's tests under `name`. */
export function memoryDataSuite(
  name: string,
  makeStore: StoreFactory,
  options: SuiteOptions = {},
): void {
  const test = suiteTest(options);

  test(`${name}: working memory is written only over the version it was read at`, async () => {
    const store = await makeStore();
    const alice = user();
    assert.deepEqual(await store.getMemory(alice), { document: {}, version: 0 });
    assert.equal(await store.putMemory(alice, { facts: ["likes tea"] }, 0), true);
    assert.equal(await store.putMemory(alice, { facts: ["likes coffee"] }, 0), false);
    assert.deepEqual(await store.getMemory(alice), {
      document: { facts: ["likes tea"] },
      version: 1,
    });
    assert.equal(await store.putMemory(alice, { facts: ["likes tea", "has a cat"] }, 1), true);
    assert.equal((await store.getMemory(alice)).version, 2);
  });

  test(`${name}: a turn loads its caller's working memory, and nobody else's`, async () => {
    const store = await makeStore();
    const [alice, bob] = [user(), user()];
    const key: Caller = { userId: null, owner: `key:${crypto.randomUUID()}` };
    await store.putMemory(alice, { facts: ["my favourite colour is teal"] }, 0);
    await store.putMemory(key, { preferences: ["answers in Portuguese"] }, 0);
    const session = `memory-${crypto.randomUUID()}`;
    assert.deepEqual((await load(store, alice, session, "hi")).workingMemory, {
      facts: ["my favourite colour is teal"],
    });
    assert.deepEqual((await load(store, key, session, "hi")).workingMemory, {
      preferences: ["answers in Portuguese"],
    });
    assert.deepEqual((await load(store, bob, session, "hi")).workingMemory, {});
    assert.deepEqual((await store.getMemory(bob)).document, {});
    assert.deepEqual((await load(store, ANONYMOUS, session, "hi")).workingMemory ?? {}, {});
  });

  test(`${name}: deleting a session removes its messages only, and clears its audit rows' content`, async () => {
    const store = await makeStore({ recentLimit: 10, matchThreshold: -1 });
    const [alice, bob] = [user(), user()];
    const [gone, kept] = [`gone-${crypto.randomUUID()}`, `kept-${crypto.randomUUID()}`];
    await say(store, alice, gone, "delete me: my passport number is P123", "noted", {
      events: [event("look_up", gone)],
    });
    await say(store, alice, kept, "keep me", undefined, { events: [event("keep_tool", kept)] });
    await say(store, bob, gone, "bob's own words in a session of the same name");
    const deleted = await store.deleteSession(alice, gone);
    assert.deepEqual(
      [deleted.messages, deleted.auditRows, deleted.summaries],
      [2, 1, 0],
    );
    assert.deepEqual(await store.listMessages(alice, gone, 100), []);
    assert.deepEqual((await load(store, alice, gone, "passport P123")).semanticMatches, []);
    assert.deepEqual((await store.listMessages(alice, kept, 100)).map((m) => m.content), [
      "keep me",
    ]);
    assert.deepEqual((await store.listMessages(bob, gone, 100)).map((m) => m.content), [
      "bob's own words in a session of the same name",
    ]);
    const exported = await readExport(store, alice);
    const calls = exported.toolCalls.map((
      call,
    ) => [call.tool, call.input, call.output, call.error]);
    assert.deepEqual(calls, [
      ["look_up", null, null, null],
      [
        "keep_tool",
        { secret: "keep_tool input" },
        { said: "keep_tool output" },
        "keep_tool failed on private text",
      ],
    ]);
    assert.ok(!JSON.stringify(exported).includes("P123"));
    // Nothing of the caller's by that name any more; another caller's is out of reach.
    assert.deepEqual(
      Object.values(await store.deleteSession(alice, gone)).every((n) => n === 0),
      true,
    );
    assert.equal((await store.deleteSession(alice, `never-${crypto.randomUUID()}`)).messages, 0);
  });

  test(`${name}: deleting everything of a caller leaves every other caller's data`, async () => {
    const store = await makeStore();
    const [alice, bob] = [user(), user()];
    const key: Caller = { userId: null, owner: `key:${crypto.randomUUID()}` };
    const session = `all-${crypto.randomUUID()}`;
    for (const caller of [alice, bob, key]) {
      await say(store, caller, session, `${caller.owner} said this`, "reply", {
        events: [event("tool", session)],
      });
      await say(store, caller, `${session}-2`, `${caller.owner} said more`);
      await store.putMemory(caller, { facts: [`${caller.owner} fact`] }, 0);
    }
    const deleted = await store.deleteEverything(alice);
    assert.deepEqual([deleted.messages, deleted.memory, deleted.auditRows], [3, 1, 1]);
    const after = await readExport(store, alice);
    assert.deepEqual([after.messages, after.workingMemory], [[], null]);
    assert.ok(after.toolCalls.every((call) => call.input === null && call.output === null));
    for (const other of [bob, key]) {
      const kept = await readExport(store, other);
      assert.equal(kept.messages.length, 3, other.owner);
      assert.deepEqual(kept.workingMemory, { facts: [`${other.owner} fact`] });
      assert.deepEqual(kept.toolCalls[0].input, { secret: "tool input" });
    }
  });

  test(`${name}: an export read a row at a time holds what one read at once holds, in the same order`, async () => {
    const store = await makeStore();
    const alice = user();
    const tag = crypto.randomUUID().slice(0, 8);
    // Sessions out of order, so the export's order (by session, then time) is its own.
    for (
      const [session, words] of [["c", ["one", "two"]], ["a", ["three"]], ["b", ["four", "five"]]]
    ) {
      for (const word of words) {
        await say(store, alice, `${tag}-${session}`, word, `${word} reply`, {
          events: [event(`${word}_tool`, `${tag}-${session}`)],
        });
      }
    }
    const whole = await readExport(store, alice, { rows: 1000 });
    assert.deepEqual(
      whole.messages.filter((m) => m.role === "user").map((m) => m.content),
      ["three", "four", "five", "one", "two"],
    );
    assert.equal(whole.toolCalls.length, 5);
    for (const size of [{ rows: 1 }, { rows: 3 }, { rows: 1000, bytes: 1 }]) {
      const paged = await readExport(store, alice, size);
      const { exportedAt: _a, ...rest } = paged;
      const { exportedAt: _b, ...expected } = whole;
      assert.deepEqual(rest, expected, JSON.stringify(size));
    }
  });

  test(`${name}: an export holds the caller's messages of every session, their memory and tool calls`, async () => {
    const store = await makeStore();
    const [alice, bob] = [user(), user()];
    const tag = crypto.randomUUID().slice(0, 8);
    await say(store, alice, `${tag}-a`, "first", "first reply", {
      events: [event("step", `${tag}-a`)],
    });
    await say(store, alice, `${tag}-b`, "second");
    await say(store, bob, `${tag}-a`, "bob's");
    await store.putMemory(alice, { facts: ["alice fact"] }, 0);
    const exported = await readExport(store, alice);
    assert.equal(exported.owner, alice.owner);
    assert.ok(!Number.isNaN(Date.parse(exported.exportedAt)));
    assert.deepEqual(
      exported.messages.map((m) => [m.sessionId, m.role, m.content]),
      [[`${tag}-a`, "user", "first"], [`${tag}-a`, "assistant", "first reply"], [
        `${tag}-b`,
        "user",
        "second",
      ]],
    );
    assert.deepEqual(exported.workingMemory, { facts: ["alice fact"] });
    assert.deepEqual(exported.toolCalls.map((call) => [call.tool, call.sessionId]), [
      ["step", `${tag}-a`],
    ]);
    assert.ok(!JSON.stringify(exported).includes("bob's"));
    const empty = await readExport(store, user());
    assert.deepEqual(
      [empty.messages, empty.workingMemory, empty.loops, empty.runs, empty.toolCalls],
      [[], null, [], [], []],
    );
  });
}
