/**
 * The playground's runs in real headless Chromium: a call that needs approval
 * (MCP_LOOP_APPROVAL=writes makes the built-in `initialize_refinement_loop`
 * one) gets Approve and Deny buttons that finish the run; a reload mid-run
 * reattaches to it and shows its result; Stop cancels the running run.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { z } from "zod";
import { defineTool } from "../../shared/tools/tool.ts";
import { MemoryRefinementStore } from "../fakes/memory_refinement_store.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { hasChromium, statusIs, typeAndSend, withPage } from "../support/playground_page.ts";

const BROWSER = { ignore: !hasChromium, sanitizeResources: false, sanitizeOps: false };
const ANONYMOUS = { userId: null, owner: "anonymous" };

/**
 * A read that finishes when the test calls `finish` (never, unless it does) or fails when its
 * signal aborts; `log` records what became of each call.
 */
function heldStep(log: string[], finished: Promise<void>) {
  return defineTool({
    name: "slow_step",
    description: "A step that takes a while",
    argsSchema: z.object({}),
    annotations: { readOnlyHint: true },
    run: ({ signal }) =>
      new Promise((resolve, reject) => {
        log.push("started");
        void finished.then(() => {
          log.push("finished");
          resolve({ slow: "done" });
        });
        signal.addEventListener("abort", () => {
          log.push("aborted");
          reject(signal.reason);
        }, { once: true });
      }),
  });
}

/** A run of the held step, then the summary; the step finishes when `finish` is called. */
function heldRun(log: string[]) {
  const finished = Promise.withResolvers<void>();
  return {
    overrides: {
      planner: new ScriptedPlanner([
        { tool: "slow_step", args: {} },
        { tool: "finalize_summary", args: {} },
      ]),
      tools: [heldStep(log, finished.promise)],
    },
    finish: () => finished.resolve(),
  };
}

const approvalRun = {
  overrides: { refinementStore: new MemoryRefinementStore() },
  env: { MCP_LOOP_APPROVAL: "writes" },
};

/** The cells of the steps table's row for `tool`. */
async function rowOf(page: Page, tool: string): Promise<string[]> {
  return await page.locator("#steps tr").filter({ hasText: tool }).locator("td").allTextContents();
}

async function waitForPending(page: Page) {
  await typeAndSend(page, "Start a spec refinement loop");
  await statusIs(page, "Waiting for your approval.");
  const row = page.locator("#steps tr").filter({ hasText: "initialize_refinement_loop" });
  assert.equal(await row.getByRole("button", { name: "Approve" }).isVisible(), true);
  assert.equal(await row.getByRole("button", { name: "Deny" }).isVisible(), true);
  return row;
}

Deno.test({
  ...BROWSER,
  name:
    "playground: a call that needs approval shows Approve and Deny, still after a reload; Approve completes the run",
  fn: () =>
    withPage(approvalRun, async (page, errors) => {
      // No model here: the page says the replies come from the offline planner, and how to connect one.
      assert.match(await page.locator("#offline-note").textContent() ?? "", /offline planner/);
      assert.match(await page.locator("#offline-note").textContent() ?? "", /OPENAI_BASE_URL/);
      await page.locator("#server-models").filter({ hasText: /no model configured/ }).waitFor();
      await waitForPending(page);
      assert.match((await rowOf(page, "initialize_refinement_loop"))[6], /needs approval/);
      // The waiting run survives a reload, buttons and all.
      await page.reload();
      await statusIs(page, "Waiting for your approval.");
      const row = page.locator("#steps tr").filter({ hasText: "initialize_refinement_loop" });
      await row.getByRole("button", { name: "Approve" }).click();
      await statusIs(page, "Done.");
      const cells = await rowOf(page, "initialize_refinement_loop");
      assert.match(cells[4], /loop_type: spec/);
      assert.equal(cells[6], "ok");
      assert.equal(await page.getByRole("button", { name: "Approve" }).count(), 0);
      assert.match(await page.locator("#outcome").textContent() ?? "", /stopped: /);
      assert.deepEqual(errors, []);
    }),
});

Deno.test({
  ...BROWSER,
  name: "playground: Deny with a reason refuses the call, and the run goes on without it",
  fn: () =>
    withPage(approvalRun, async (page, errors) => {
      const row = await waitForPending(page);
      await row.getByLabel("Reason to deny initialize_refinement_loop").fill("not this sprint");
      await row.getByRole("button", { name: "Deny" }).click();
      await statusIs(page, "Done.");
      const cells = await rowOf(page, "initialize_refinement_loop");
      assert.match(cells[4], /APPROVAL_DENIED/);
      assert.match(cells[4], /not this sprint/);
      assert.equal(cells[6], "failed");
      assert.deepEqual(errors, []);
    }),
});

Deno.test({
  ...BROWSER,
  name: "playground: a reload mid-run reattaches to the run and shows its result",
  fn: () => {
    const log: string[] = [];
    const run = heldRun(log);
    return withPage(run, async (page, errors) => {
      await typeAndSend(page, "take your time");
      await page.locator("#steps tr").filter({ hasText: "running" }).waitFor();
      const runId = await page.locator("#run-id").textContent();
      assert.match(runId ?? "", /^Run [0-9a-f-]{36}$/);
      const followed: { url: string; lastEventId?: string }[] = [];
      page.on("request", (req) => {
        if (req.url().includes("/runs/")) {
          followed.push({ url: req.url(), lastEventId: req.headers()["last-event-id"] });
        }
      });
      // The step finishes once the reloaded page follows the run again.
      const following = page.waitForRequest((req) => req.url().includes("/events"));
      await page.reload();
      await following;
      run.finish();
      await statusIs(page, "Done.");
      assert.equal(await page.locator("#run-id").textContent(), runId, "the same run");
      // What was shown before the reload is back, and the rest came after it.
      assert.match(await page.locator("#context-note").textContent() ?? "", /recent/);
      assert.equal((await rowOf(page, "slow_step"))[6], "ok");
      assert.match(await page.locator("#summary").textContent() ?? "", /slow_step/);
      assert.deepEqual(log, ["started", "finished"], "the run went on once, through the reload");
      // It followed the run's events from the last one it had shown.
      assert.equal(followed.length, 1);
      assert.ok(followed[0].url.endsWith(`/runs/${runId!.slice(4)}/events`), followed[0].url);
      assert.ok(Number(followed[0].lastEventId) >= 4, `Last-Event-ID ${followed[0].lastEventId}`);
      // Finished, it is forgotten: another reload starts afresh.
      await page.reload();
      await statusIs(page, "Ready.");
      assert.equal(await page.locator("#steps tr").count(), 0);
      assert.deepEqual(errors, []);
    });
  },
});

Deno.test({
  ...BROWSER,
  name: "playground: Stop cancels the running run",
  fn: () => {
    const log: string[] = [];
    return withPage(heldRun(log), async (page, errors, { runs }) => {
      await typeAndSend(page, "take your time");
      await page.locator("#steps tr").filter({ hasText: "running" }).waitFor();
      await page.getByRole("button", { name: "Stop" }).click();
      await statusIs(page, "Cancelled.");
      assert.deepEqual(log, ["started", "aborted"]);
      const runId = (await page.locator("#run-id").textContent())!.replace(/^Run /, "");
      assert.equal((await runs.get(ANONYMOUS, runId))?.status, "cancelled");
      assert.equal(await page.getByRole("button", { name: "Stop" }).isDisabled(), true);
      assert.deepEqual(errors, []);
    });
  },
});
