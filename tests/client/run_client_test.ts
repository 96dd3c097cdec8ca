/**
 * The typed client's run methods against the real server on loopback: a call
 * that waits for approval, approved (once) or denied, streamed or not; a run
 * paused at its deadline resumed; a waiting run cancelled; its view; and its
 * events replayed from an id, reconnecting after a dropped connection.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import {
  createMcpLoopClient,
  McpLoopError,
  type RunEvent,
  type StreamedEvent,
} from "../../shared/client/mcp_loop_client.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { withFakeDeadlines } from "../support/fake_clock.ts";
import { serve } from "../support/mcp_fixture.ts";
import { testApp, validBody } from "../support/test_app.ts";

const calls: string[] = [];
/** Resolved when `slow_read` starts. */
let readStarted = Promise.withResolvers<void>();
const TOOLS = [
  defineTool({
    name: "pay",
    description: "Pay an amount",
    argsSchema: z.object({ amount: z.number() }),
    needsApproval: true,
    run: ({ args }) => {
      calls.push(`pay:${args.amount}`);
      return { paid: args.amount };
    },
  }),
  defineTool({
    name: "slow_read",
    description: "A read that ends only when aborted",
    argsSchema: z.object({}),
    annotations: { readOnlyHint: true },
    run: ({ signal }) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        readStarted.resolve();
      }),
  }),
];
const PAY = [{ tool: "pay", args: { amount: 5 } }, { tool: "finalize_summary", args: {} }];

async function withClient(
  fn: (client: ReturnType<typeof createMcpLoopClient>, requests: Request[]) => Promise<void>,
  { plan = PAY, env = {}, fetch: wrap }: {
    plan?: unknown[];
    env?: Record<string, string>;
    fetch?: (req: Request) => Promise<Response>;
  } = {},
) {
  calls.length = 0;
  const { app } = testApp({ planner: new ScriptedPlanner(plan), tools: TOOLS }, env);
  const server = serve(app);
  const requests: Request[] = [];
  try {
    const client = createMcpLoopClient({
      url: `${server.base}/mcp-loop`,
      fetch: (input, init) => {
        const req = new Request(input, init);
        requests.push(req.clone());
        return wrap ? wrap(req) : fetch(req);
      },
    });
    await fn(client, requests);
  } finally {
    await server.close();
  }
}

Deno.test("client.run shows the pending approvals; client.approve runs the call once and finishes the run", () =>
  withClient(async (client) => {
    const waiting = await client.run(validBody("pay 5") as never);
    assert.equal(waiting.stopReason, "approval_required");
    const [pending] = waiting.pendingApprovals!;
    assert.deepEqual([pending.tool, pending.args, pending.step], ["pay", { amount: 5 }, 0]);
    assert.equal((await client.getRun(waiting.runId!)).status, "waiting_approval");

    const done = await client.approve(waiting.runId!, [{ id: pending.id, approved: true }]);
    assert.equal(done.stopReason, "finalized");
    assert.equal(done.runId, waiting.runId);
    assert.deepEqual(calls, ["pay:5"]);
    const view = await client.getRun(waiting.runId!);
    assert.equal(view.status, "completed");
    assert.deepEqual(view.pendingApprovals, []);
    assert.match(view.summaryMessage!, /pay/);

    await assert.rejects(
      client.approve(waiting.runId!, [{ id: pending.id, approved: true }]),
      (error) =>
        error instanceof McpLoopError && error.code === "RUN_STATE" && error.status === 409,
    );
    assert.deepEqual(calls, ["pay:5"], "approved once, run once");
    await assert.rejects(
      client.getRun("no-such-run"),
      (error) => error instanceof McpLoopError && error.status === 404,
    );
  }));

Deno.test("client.stream ends with the approval request; client.approveStream denies it with a reason, and it never runs", () =>
  withClient(async (client) => {
    const first: StreamedEvent[] = [];
    for await (const event of client.stream(validBody("pay 5") as never)) first.push(event);
    assert.deepEqual(first.slice(-2).map((e) => e.type), ["approval_required", "result"]);
    const run = first[0];
    assert.ok(run.type === "run" && run.id === 1, "the run's events carry their ids");
    const asked = first.at(-2)!;
    assert.ok(asked.type === "approval_required");
    const [pending] = asked.pendingApprovals;

    const next: StreamedEvent[] = [];
    for await (
      const event of client.approveStream(run.runId, [
        { id: pending.id, approved: false, reason: "over budget" },
      ])
    ) next.push(event);
    const result = next.at(-1)!;
    assert.ok(result.type === "result");
    assert.equal(result.data.stopReason, "finalized");
    assert.equal(result.data.intermediateResults[0].code, "APPROVAL_DENIED");
    assert.match(result.data.intermediateResults[0].error!, /over budget/);
    assert.deepEqual(calls, []);
    const ids = next.flatMap((e) => e.id === undefined ? [] : [e.id]);
    assert.ok(ids[0] > asked.id!, "the continuation's events number on");
  }));

Deno.test("client.resume goes on with a run paused at its deadline", () =>
  withClient((client) =>
    withFakeDeadlines(async (clock) => {
      readStarted = Promise.withResolvers<void>();
      const pausing = client.run(validBody("read slowly") as never);
      await readStarted.promise;
      await clock.advance(200);
      const paused = await pausing;
      assert.equal(paused.stopReason, "deadline");
      assert.equal((await client.getRun(paused.runId!)).status, "paused");
      const done = await client.resume(paused.runId!);
      assert.equal(done.stopReason, "finalized");
      assert.deepEqual(done.intermediateResults.map((r) => r.code ?? "ok"), [
        "DEADLINE_EXCEEDED",
        "ok",
      ]);
    }), {
    plan: [{ tool: "slow_read", args: {} }, { tool: "finalize_summary", args: {} }],
    env: { MCP_LOOP_DEADLINE_MS: "200" },
  }));

Deno.test("client.cancel stops a waiting run (which resume refuses: 409) and returns its view", () =>
  withClient(async (client) => {
    const waiting = await client.run(validBody("pay 5") as never);
    await assert.rejects(
      client.resume(waiting.runId!),
      (error) => error instanceof McpLoopError && error.code === "RUN_STATE",
    );
    const view = await client.cancel(waiting.runId!);
    assert.equal(view.runId, waiting.runId);
    assert.equal(view.status, "cancelled");
    assert.equal((await client.getRun(waiting.runId!)).status, "cancelled");
    assert.deepEqual(calls, []);
  }));

Deno.test("client.events replays a run's events with their ids, from lastEventId on", () =>
  withClient(async (client, requests) => {
    const waiting = await client.run(validBody("pay 5") as never);
    const all: RunEvent[] = [];
    for await (const event of client.events(waiting.runId!)) all.push(event);
    assert.deepEqual(all.map((e) => e.id), all.map((_, i) => i + 1));
    assert.deepEqual(all.slice(-2).map((e) => e.type), ["approval_required", "result"]);
    const later: RunEvent[] = [];
    for await (const event of client.events(waiting.runId!, { lastEventId: 3 })) later.push(event);
    assert.deepEqual(later, all.slice(3));
    assert.equal(requests.at(-1)!.headers.get("last-event-id"), "3");
  }));

/** The first events response breaks after two events, as a dropped connection does. */
async function dropAfterTwo(req: Request, dropped: { done: boolean }): Promise<Response> {
  const res = await fetch(req);
  if (dropped.done || !new URL(req.url).pathname.endsWith("/events")) return res;
  dropped.done = true;
  const text = await res.text();
  const two = text.split("\n\n").slice(0, 2).join("\n\n") + "\n\n";
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      // Erroring drops what is queued: the two events go first, the reset on the next read.
      if (sent) return controller.error(new TypeError("connection reset"));
      sent = true;
      controller.enqueue(new TextEncoder().encode(two));
    },
  });
  return new Response(body, { headers: res.headers });
}

Deno.test("client.events reconnects after a dropped connection from the last event it got", () => {
  const dropped = { done: false };
  return withClient(async (client, requests) => {
    const waiting = await client.run(validBody("pay 5") as never);
    const seen: RunEvent[] = [];
    for await (const event of client.events(waiting.runId!, { retryMs: 10 })) seen.push(event);
    assert.ok(dropped.done);
    assert.deepEqual(seen.map((e) => e.id), seen.map((_, i) => i + 1), "none lost, none twice");
    assert.equal(seen.at(-1)!.type, "result");
    const followed = requests.filter((r) => r.url.endsWith("/events"));
    assert.equal(followed.length, 2);
    assert.equal(followed[1].headers.get("last-event-id"), "2");
  }, { fetch: (req) => dropAfterTwo(req, dropped) });
});

Deno.test("client.getRun reads the {success, data} view, and the bare view earlier servers sent", async () => {
  const view = { runId: "r1", status: "completed", lastEventId: 4 };
  for (const body of [{ success: true, data: view }, view]) {
    const client = createMcpLoopClient({
      url: "http://function.test/mcp-loop",
      fetch: () => Promise.resolve(Response.json(body)),
    });
    assert.deepEqual(await client.getRun("r1"), view, JSON.stringify(body));
  }
});
