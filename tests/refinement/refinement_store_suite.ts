/** The refinement store's behaviour, run against the fake and the SQL store on PGlite. */
import assert from "node:assert/strict";
import type { Caller } from "../../shared/ports.ts";
import type { RefinementStore } from "../../shared/store/refinement_store_port.ts";
import { LoopAlreadyExistsError, LoopNotFoundError } from "../../shared/errors.ts";
import { decide } from "../../shared/refinement/policy.ts";

/** Makes a store; `newId` replaces the id generator. */
export type RefinementStoreFactory = (
  options?: { newId?: () => string },
) => Promise<RefinementStore>;

const owner = (): Caller => ({ userId: null, owner: `key:${crypto.randomUUID()}` });
const spec = { loopType: "spec" as const, threshold: 85, maxIterations: 5 };

/** Registers the suite's tests under `name`. */
export function refinementStoreSuite(name: string, makeStore: RefinementStoreFactory): void {
  Deno.test(`${name}: a created loop starts initialized with an 8-hex id and can be read back`, async () => {
    const store = await makeStore();
    const caller = owner();
    const loop = await store.create(caller, spec);
    assert.match(loop.id, /^[0-9a-f]{8}$/);
    assert.deepEqual(
      [
        loop.status,
        loop.loopType,
        loop.currentScore,
        loop.scoreHistory,
        loop.iteration,
        loop.threshold,
        loop.maxIterations,
      ],
      ["initialized", "spec", null, [], 0, 85, 5],
    );
    assert.deepEqual(await store.get(caller, loop.id), loop);
  });

  Deno.test(`${name}: loops are visible only to their owner`, async () => {
    const store = await makeStore();
    const [alice, bob] = [owner(), owner()];
    const loop = await store.create(alice, spec);
    await assert.rejects(store.get(bob, loop.id), LoopNotFoundError);
    await assert.rejects(store.update(bob, loop.id, (s) => decide(s, 50)), LoopNotFoundError);
    assert.deepEqual(await store.listRecent(bob, 10), []);
  });

  Deno.test(`${name}: an id collision retries with a new id; endless collisions fail clearly`, async () => {
    const ids = ["0000aaaa", "0000aaaa", "0000bbbb"];
    const store = await makeStore({ newId: () => ids.shift() ?? "0000aaaa" });
    const caller = owner();
    const first = await store.create(caller, spec);
    const second = await store.create(caller, spec);
    assert.deepEqual([first.id, second.id].sort(), ["0000aaaa", "0000bbbb"].sort());
    await assert.rejects(store.create(caller, spec), LoopAlreadyExistsError);
  });

  Deno.test(`${name}: 20 concurrent decisions on one loop keep all 20 scores`, async () => {
    const store = await makeStore();
    const caller = owner();
    const loop = await store.create(caller, {
      loopType: "plan",
      threshold: 100,
      maxIterations: 20,
    });
    const scores = Array.from({ length: 20 }, (_, i) => i);
    await Promise.all(
      scores.map((score) => store.update(caller, loop.id, (s) => decide(s, score))),
    );
    const final = await store.get(caller, loop.id);
    assert.equal(final.scoreHistory.length, 20);
    assert.deepEqual([...final.scoreHistory].sort((a, b) => a - b), scores);
  });

  Deno.test(`${name}: a change that throws writes nothing`, async () => {
    const store = await makeStore();
    const caller = owner();
    const loop = await store.create(caller, spec);
    await assert.rejects(
      store.update(caller, loop.id, () => {
        throw new Error("refused");
      }),
      /refused/,
    );
    assert.deepEqual((await store.get(caller, loop.id)).scoreHistory, []);
  });

  Deno.test(`${name}: listRecent gives the newest first, at most the limit`, async () => {
    const store = await makeStore();
    const caller = owner();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await store.create(caller, spec)).id);
    const listed = await store.listRecent(caller, 10);
    assert.deepEqual(listed.map((l) => l.id), ids.reverse().slice(0, 10));
  });

  Deno.test(`${name}: findIds completes the caller's loop ids by prefix, newest first`, async () => {
    // Ids are unique across callers in the shared database: a random prefix keeps this test's apart.
    const hex = () => crypto.randomUUID().replaceAll("-", "").slice(0, 4);
    const [ab, cd] = [hex(), hex()];
    const ids = [`${ab}0001`, `${ab}0002`, `${cd}0003`];
    const store = await makeStore({ newId: () => ids.shift() ?? `${hex()}${hex()}` });
    const caller = owner();
    for (let i = 0; i < 3; i++) await store.create(caller, spec);
    assert.deepEqual(await store.findIds(caller, ab, 100), [`${ab}0002`, `${ab}0001`]);
    assert.deepEqual(await store.findIds(caller, "", 2), [`${cd}0003`, `${ab}0002`]);
    assert.deepEqual(await store.findIds(owner(), ab, 100), []);
  });
}
