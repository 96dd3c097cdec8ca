/** A database still opening is not charged to the first requests' deadlines. */
import assert from "node:assert/strict";
import { createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import type { Sql } from "../../shared/ports.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { type FakeClock, settle, withFakeDeadlines } from "../support/fake_clock.ts";
import { sharedPglite } from "../support/pglite.ts";
import { post, validBody } from "../support/test_app.ts";

/**
 * An app whose database opens when the test says so, with a request deadline of 300 ms
 * (on the fake clock).
 */
async function slowlyOpening() {
  const database = await sharedPglite();
  // Closing the app must not close the process's shared database.
  const borrowed: Sql = {
    query: (text, params) => database.query(text, params),
    exec: (script) => database.exec(script),
    transaction: (fn) => database.transaction(fn),
    close: () => Promise.resolve(),
  };
  const opening = Promise.withResolvers<Sql>();
  const app = createApp(
    loadConfig({ MCP_LOOP_DATA_DIR: "memory://", MCP_LOOP_DEADLINE_MS: "300" }),
    { opening: opening.promise, logger: new RecordingLogger() },
  );
  return { app, open: () => opening.resolve(borrowed) };
}

/** Lets `work` start, moves the clock well past the deadline, and tells whether it settled meanwhile. */
async function settledWhileOpening(clock: FakeClock, work: Promise<unknown>): Promise<boolean> {
  let settled = false;
  work.then(() => settled = true, () => settled = true);
  for (let turn = 0; turn < 5; turn++) await settle();
  await clock.advance(1_000);
  return settled;
}

Deno.test("the first loop request waits for the database to open, then gets its whole deadline", () =>
  withFakeDeadlines(async (clock) => {
    const { app, open } = await slowlyOpening();
    try {
      const answer = app.fetch(post(validBody("hello while the database opens")));
      assert.equal(await settledWhileOpening(clock, answer), false, "it waits for the database");
      open();
      const res = await answer;
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.data.stopReason, "finalized");
    } finally {
      await app.close();
    }
  }));

Deno.test("app.run waits for the database too", () =>
  withFakeDeadlines(async (clock) => {
    const { app, open } = await slowlyOpening();
    try {
      const running = app.run(validBody("hello from code"));
      assert.equal(await settledWhileOpening(clock, running), false, "it waits for the database");
      open();
      const { data } = await running;
      assert.equal(data.stopReason, "finalized");
    } finally {
      await app.close();
    }
  }));
