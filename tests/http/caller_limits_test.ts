/** Per-caller limits: in flight, per minute, bytes per minute; 429 with Retry-After; shared counts. */
import assert from "node:assert/strict";
import { createCallerLimiter } from "../../shared/http/caller_limits.ts";
import type { Caller } from "../../shared/ports.ts";
import { SqlCallerQuota } from "../../shared/store/sql_caller_quota.ts";
import { sharedPglite } from "../support/pglite.ts";
import { post, testApp, validBody } from "../support/test_app.ts";

const alice: Caller = { userId: null, owner: "key:alice" };
const bob: Caller = { userId: null, owner: "key:bob" };

function rejectsWith(promise: Promise<unknown>, retryAfter: number): Promise<void> {
  return assert.rejects(
    promise,
    (error: { code?: string; details?: { retryAfterSeconds?: number } }) =>
      error.code === "RATE_LIMITED" && error.details?.retryAfterSeconds === retryAfter,
  );
}

Deno.test("requests in flight are limited per caller; a release makes room; other callers are not affected", async () => {
  const limiter = createCallerLimiter({ concurrency: 2, requestsPerMinute: 0, bytesPerMinute: 0 });
  const first = await limiter.admit(alice, { bytes: 0 });
  await limiter.admit(alice, { bytes: 0 });
  await rejectsWith(limiter.admit(alice, { bytes: 0 }), 1);
  await limiter.admit(bob, { bytes: 0 });
  first();
  first(); // releasing twice frees one place only
  await limiter.admit(alice, { bytes: 0 });
  await rejectsWith(limiter.admit(alice, { bytes: 0 }), 1);
});

Deno.test("requests and bytes per minute refill over time, and say how long to wait", async () => {
  let now = 0;
  const limiter = createCallerLimiter(
    { concurrency: 0, requestsPerMinute: 60, bytesPerMinute: 1_000 },
    { now: () => now },
  );
  for (let i = 0; i < 60; i++) (await limiter.admit(alice, { bytes: 0 }))();
  await rejectsWith(limiter.admit(alice, { bytes: 0 }), 1);
  now += 1_000; // one request refilled
  (await limiter.admit(alice, { bytes: 0 }))();
  (await limiter.admit(bob, { bytes: 900 }))();
  await rejectsWith(limiter.admit(bob, { bytes: 600 }), 30);
});

Deno.test("a caller whose bytes are spent stays refused after its requests finish, until the bytes refill", async () => {
  let now = 0;
  const limiter = createCallerLimiter(
    { concurrency: 0, requestsPerMinute: 600, bytesPerMinute: 1_000 },
    { now: () => now },
  );
  const big = await limiter.admit(alice, { bytes: 1_000 });
  // 10 s later, while it is still in flight, its requests per minute are full again (refused
  // calls take none), its bytes not:
  now += 10_000;
  await rejectsWith(limiter.admit(alice, { bytes: 1_000 }), 50);
  big(); // its end must not reset the caller's counts
  await rejectsWith(limiter.admit(alice, { bytes: 1_000 }), 50);
  (await limiter.admit(alice, { bytes: 100 }))();
  await rejectsWith(limiter.admit(alice, { bytes: 1_000 }), 56);
});

Deno.test("the counts of a caller idle for a minute are dropped; one with a request in flight is kept", async () => {
  let now = 0;
  const limiter = createCallerLimiter(
    { concurrency: 1, requestsPerMinute: 60, bytesPerMinute: 0 },
    { now: () => now },
  );
  for (let i = 0; i < 100; i++) {
    (await limiter.admit({ userId: null, owner: `key:one-off-${i}` }, { bytes: 0 }))();
  }
  await limiter.admit(alice, { bytes: 0 }); // never released
  assert.equal(limiter.tracked(), 101);
  now += 60_000;
  (await limiter.admit(bob, { bytes: 0 }))();
  assert.equal(limiter.tracked(), 2, "alice (in flight) and bob are kept");
  await rejectsWith(limiter.admit(alice, { bytes: 0 }), 1);
});

Deno.test("over HTTP a caller past a limit gets 429 RATE_LIMITED with Retry-After", async () => {
  const { app } = testApp({}, {
    MCP_LOOP_CALLER_REQUESTS_PER_MINUTE: "2",
    MCP_LOOP_CALLER_CONCURRENCY: "0",
  });
  assert.equal((await app.fetch(post(validBody()))).status, 200);
  assert.equal((await app.fetch(post(validBody()))).status, 200);
  const refused = await app.fetch(post(validBody()));
  assert.equal(refused.status, 429);
  assert.equal((await refused.json()).error.code, "RATE_LIMITED");
  assert.match(refused.headers.get("retry-after") ?? "", /^\d+$/);
});

Deno.test("take_caller_quota counts each caller's minute in the database, for every instance alike", async () => {
  const quota = new SqlCallerQuota(await sharedPglite());
  const who: Caller = { userId: null, owner: `key:quota-${crypto.randomUUID()}` };
  const other: Caller = { userId: null, owner: `key:quota-${crypto.randomUUID()}` };
  const limits = { requests: 3, bytes: 0 };
  for (let i = 0; i < 3; i++) assert.equal(await quota.take(who, { bytes: 10 }, limits), 0);
  const wait = await quota.take(who, { bytes: 10 }, limits);
  assert.ok(wait >= 1 && wait <= 60, `wait ${wait}`);
  assert.equal(
    await quota.take(other, { bytes: 10 }, limits),
    0,
    "another caller has its own minute",
  );
  assert.ok(await quota.take(who, { bytes: 0 }, { requests: 0, bytes: 25 }) > 0, "bytes count too");
  // Two limiters (two instances) on one database share the minute.
  const settings = { concurrency: 0, requestsPerMinute: 2, bytesPerMinute: 0 };
  const third: Caller = { userId: null, owner: `key:quota-${crypto.randomUUID()}` };
  const a = createCallerLimiter(settings, { shared: quota });
  const b = createCallerLimiter(settings, { shared: quota });
  (await a.admit(third, { bytes: 0 }))();
  (await b.admit(third, { bytes: 0 }))();
  await assert.rejects(
    a.admit(third, { bytes: 0 }),
    (e: { code?: string }) => e.code === "RATE_LIMITED",
  );
});

Deno.test("the minutes of callers who have gone are removed by later takes, a few at a time", async () => {
  const sql = await sharedPglite();
  const quota = new SqlCallerQuota(sql);
  const gone = Array.from({ length: 30 }, () => `key:gone-${crypto.randomUUID()}`);
  for (const owner of gone) {
    await sql.query(
      `insert into public.caller_quota (owner, window_start, requests)
       values ($1, date_trunc('minute', clock_timestamp()) - interval '60 minutes', 5)`,
      [owner],
    );
  }
  const left = async () =>
    Number(
      (await sql.query<{ n: number }>(
        "select count(*)::int as n from public.caller_quota where owner = any($1::text[])",
        [gone],
      ))[0].n,
    );
  const someone: Caller = { userId: null, owner: `key:quota-${crypto.randomUUID()}` };
  await quota.take(someone, { bytes: 0 }, { requests: 0, bytes: 0 });
  assert.ok((await left()) <= 10, "at most 20 lapsed rows each take, oldest first");
  await quota.take(someone, { bytes: 0 }, { requests: 0, bytes: 0 });
  assert.equal(await left(), 0);
  const [{ n: current }] = await sql.query<{ n: number }>(
    "select count(*)::int as n from public.caller_quota where owner = $1",
    [someone.owner],
  );
  assert.equal(current, 1, "the current minute stays");
});
