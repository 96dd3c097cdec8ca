/**
 * A started server under two kinds of abuse: a client that leaves during a
 * long step (the run goes on and its turn is stored whole; no error is
 * logged), a run cancelled mid-step (no turn, the step on record in the run),
 * and one caller flooding it (refused with 429 while another caller is served).
 */
import assert from "node:assert/strict";
import { RemoteMcpFixture } from "../fakes/remote_mcp_fixture.ts";
import {
  freePort,
  initializedDataDir,
  SERVE_ARGS,
  spawnProcess,
  untilReady,
} from "../support/process.ts";

const ALICE = "alice-key-0123456789";
const BOB = "bob-key-0123456789ab";

async function server(port: number, env: Record<string, string> = {}) {
  return spawnProcess([...SERVE_ARGS], {
    env: {
      PORT: String(port),
      MCP_LOOP_DATA_DIR: await initializedDataDir(),
      MCP_LOOP_API_KEYS: `alice=${ALICE}, bob=${BOB}`,
      MCP_LOOP_LOG_LEVEL: "info",
      ...env,
    },
  });
}

const headers = (key: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${key}`,
  "content-type": "application/json",
  ...extra,
});

async function view(base: string, runId: string, key = ALICE) {
  return (await (await fetch(`${base}/runs/${runId}`, { headers: headers(key) })).json()).data;
}

/** The run once it has ended: its event stream ends with it. */
async function ended(base: string, runId: string, key = ALICE) {
  const events = await fetch(`${base}/runs/${runId}/events`, {
    headers: headers(key, { accept: "text/event-stream" }),
  });
  await events.text();
  return await view(base, runId, key);
}

Deno.test("a client leaving mid-step: the run finishes, its turn is stored whole, nothing is logged as an error; a cancel keeps what ran", async () => {
  const remote = RemoteMcpFixture.start();
  const port = freePort();
  const base = `http://127.0.0.1:${port}/mcp-loop`;
  const proc = await server(port, {
    MCP_LOOP_REMOTE_SERVERS: JSON.stringify([{ name: "fixture", url: remote.url }]),
  });
  try {
    await untilReady(proc);
    const sessionId = `leave-${crypto.randomUUID()}`;
    const ask = (content: string, signal?: AbortSignal) =>
      fetch(base, {
        method: "POST",
        headers: headers(ALICE, { accept: "text/event-stream" }),
        body: JSON.stringify({ mode: "general", sessionId, messages: [{ role: "user", content }] }),
        signal,
      });
    const leaving = new AbortController();
    const res = await ask("please sleep 1500 ms", leaving.signal);
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("event: step_start")) {
      text += new TextDecoder().decode((await reader.read()).value);
    }
    const runId = /"runId":"([^"]+)"/.exec(text)![1];
    leaving.abort(); // the page is closed mid-step
    await reader.cancel().catch(() => {});
    const done = await ended(base, runId);
    assert.equal(done.status, "completed");
    assert.deepEqual(
      done.intermediateResults.map((r: { tool: string; success: boolean }) => [r.tool, r.success]),
      [
        ["fixture__sleep", true],
        ["finalize_summary", true],
      ],
    );
    // The turn is stored whole: the next request sees the message and its reply.
    const next = await (await fetch(base, {
      method: "POST",
      headers: headers(ALICE),
      body: JSON.stringify({
        mode: "general",
        sessionId,
        messages: [{ role: "user", content: "thanks" }],
      }),
    })).json();
    assert.deepEqual(next.data.context.recentMessages.map((m: { role: string }) => m.role), [
      "user",
      "assistant",
    ]);

    // A cancel mid-step: no turn; the step is on record in the run.
    // Long enough that the cancel lands mid-step however busy the machine (the step timeout is 8 s).
    const cancelled = await ask("please sleep 7000 ms");
    const streaming = cancelled.body!.getReader();
    let seen = "";
    while (!seen.includes("event: step_start")) {
      seen += new TextDecoder().decode((await streaming.read()).value);
    }
    const cancelId = /"runId":"([^"]+)"/.exec(seen)![1];
    const stop = await fetch(`${base}/runs/${cancelId}/cancel`, {
      method: "POST",
      headers: headers(ALICE),
    });
    assert.equal(stop.status, 200);
    await streaming.cancel().catch(() => {});
    const stopped = await ended(base, cancelId);
    assert.equal(stopped.status, "cancelled");
    assert.equal(stopped.intermediateResults[0].tool, "fixture__sleep");
    assert.equal(stopped.intermediateResults[0].code, "CANCELLED");
    const after = await (await fetch(base, {
      method: "POST",
      headers: headers(ALICE),
      body: JSON.stringify({
        mode: "general",
        sessionId,
        messages: [{ role: "user", content: "again" }],
      }),
    })).json();
    assert.equal(after.data.context.recentMessages.length, 4, "the cancelled run stored no turn");
    const errors = proc.stderr().split("\n").filter((line) => line.includes('"level":"error"'));
    assert.deepEqual(errors, []);
  } finally {
    await proc.kill();
    await remote.stop();
  }
});

Deno.test("one caller flooding the server is refused with 429 while another caller is served", async () => {
  const port = freePort();
  const base = `http://127.0.0.1:${port}/mcp-loop`;
  // The subject is who is served, not how fast: on a starved machine the other caller's requests
  // may take longer than the default 10 s deadline, so the deadline is the longest there is.
  const proc = await server(port, {
    MCP_LOOP_MAX_BODY_BYTES: "2000000",
    MCP_LOOP_DEADLINE_MS: "600000",
  });
  try {
    await untilReady(proc);
    const big = "x".repeat(1_000_000);
    const body = (content: string) =>
      JSON.stringify({
        mode: "general",
        sessionId: `flood-${crypto.randomUUID()}`,
        messages: [{ role: "user", content: "hi" }],
        context: { blob: content },
      });
    const statuses: number[] = [];
    const retryAfter: string[] = [];
    let flooding = true;
    const flood = Promise.all(Array.from({ length: 16 }, async () => {
      while (flooding) {
        const res = await fetch(base, { method: "POST", headers: headers(ALICE), body: body(big) });
        statuses.push(res.status);
        if (res.status === 429) retryAfter.push(res.headers.get("retry-after") ?? "");
        await res.body?.cancel();
      }
    }));
    const served: number[] = [];
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const res = await fetch(base, { method: "POST", headers: headers(BOB), body: body("small") });
      latencies.push(performance.now() - started);
      served.push(res.status);
      await res.body?.cancel();
    }
    flooding = false;
    await flood;
    assert.deepEqual(served, Array(20).fill(200), "the other caller is served");
    assert.ok(statuses.includes(429), "the flooding caller is refused");
    assert.ok(retryAfter.every((value) => /^\d+$/.test(value)));
    latencies.sort((a, b) => a - b);
    console.log(
      `flood: ${statuses.length} requests (${statuses.filter((s) => s === 429).length} refused); ` +
        `the other caller's median ${Math.round(latencies[10])} ms`,
    );
  } finally {
    await proc.kill();
  }
});
