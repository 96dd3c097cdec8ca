/** The run store suite against the in-memory fake and against SQL on PGlite; RLS for two users. */
import assert from "node:assert/strict";
import { SqlRunStore } from "../../shared/store/sql_run_store.ts";
import { initialCheckpoint } from "../../shared/runs/checkpoint.ts";
import { MemoryRunStore } from "../fakes/memory_run_store.ts";
import { loopRequest } from "../support/loop_fixture.ts";
import { sharedPglite } from "../support/pglite.ts";
import { runStoreSuite } from "./run_store_suite.ts";

runStoreSuite("memory run store", () => Promise.resolve(new MemoryRunStore()));
runStoreSuite("SQL run store on PGlite", async () => new SqlRunStore(await sharedPglite()));

Deno.test("SQL run store on PGlite: under row level security a user reaches only their own runs", async () => {
  const store = new SqlRunStore(await sharedPglite());
  const user = (id: string) => ({ userId: id, owner: `user:${id}`, claims: { sub: id } });
  const alice = user(crypto.randomUUID());
  const bob = user(crypto.randomUUID());
  const request = loopRequest("mine");
  const run = await store.create(alice, {
    sessionId: request.sessionId,
    request,
    checkpoint: initialCheckpoint({ maxRounds: 1, budgetMs: 1 }),
    leaseMs: 1_000,
    events: [{ type: "run", data: {} }],
  });
  assert.equal((await store.get(alice, run.id))?.id, run.id);
  // Even with Alice's owner key, Bob's identity sees nothing: RLS, not just the owner filter.
  const bobAsAlice = { ...bob, owner: alice.owner };
  assert.equal(await store.get(bobAsAlice, run.id), undefined);
  assert.deepEqual(await store.events(bobAsAlice, run.id, 0, 10), []);
  assert.equal(await store.requestCancel(bobAsAlice, run.id), undefined);
});
