/** A database still opening is not charged to the first requests' deadlines. */
import assert from "node:assert/strict";
import { createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import type { Sql } from "../../shared/ports.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";
import { sharedPglite } from "../support/pglite.ts";
import { post, validBody } from "../support/test_app.ts";

/** An app whose database takes `ms` to open, with a request deadline shorter than that. */
async function slowlyOpening(ms: number) {
  const database = await sharedPglite();
  // Closing the app must not close the process's shared database.
  const borrowed: Sql = {
    query: (text, params) => database.query(text, params),
    exec: (script) => database.exec(script),
    transaction: (fn) => database.transaction(fn),
    close: () => Promise.resolve(),
  };
  const opening = new Promise<Sql>((resolve) => setTimeout(() => resolve(borrowed), ms));
  return createApp(
    loadConfig({ MCP_LOOP_DATA_DIR: "memory://", MCP_LOOP_DEADLINE_MS: "300" }),
    { opening, logger: new RecordingLogger() },
  );
}

Deno.test("the first loop request waits for the database to open, then gets its whole deadline", async () => {
  const app = await slowlyOpening(700);
  try {
    const started = performance.now();
    const res = await app.fetch(post(validBody("hello while the database opens")));
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.ok(performance.now() - started >= 650, "it waited for the database");
    assert.equal(body.data.stopReason, "finalized");
  } finally {
    await app.close();
  }
});

Deno.test("app.run waits for the database too", async () => {
  const app = await slowlyOpening(500);
  try {
    const { data } = await app.run(validBody("hello from code"));
    assert.equal(data.stopReason, "finalized");
  } finally {
    await app.close();
  }
});
