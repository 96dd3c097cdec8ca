/**
 * The playground in real headless Chromium (Debian's chromium driven by
 * playwright-core, see tests/support/playground_page.ts), used as a person
 * would: type, send, watch the steps. Set UPDATE_SCREENSHOT=1 to rewrite
 * docs/playground.png; CHROMIUM_PATH names another browser binary.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { z } from "zod";
import { defineTool } from "../../shared/tools/tool.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { MemoryRefinementStore } from "../fakes/memory_refinement_store.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { hasChromium, statusIs, typeAndSend, withPage } from "../support/playground_page.ts";

const API_KEY = "playground-test-key-0123456789";

/** One recent message, so the first turn's question comes back as a semantic match. */
const overrides = () => ({
  refinementStore: new MemoryRefinementStore(),
  store: new MemoryConversationStore({ recentLimit: 1 }),
});

async function send(page: Page, message: string) {
  await typeAndSend(page, message);
  await statusIs(page, "Done.", "Failed.");
}

Deno.test({
  name: "playground: a refinement run streams its context, plan, steps, scores and summary",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withPage({ overrides: overrides() }, async (page, errors) => {
      await page.getByLabel("Session").fill("playground-browser-test");
      await send(page, "list my refinement loops");
      assert.equal(await page.getByRole("alert").isHidden(), true);
      await page.getByLabel("Refinement").selectOption("plan");
      await page.getByLabel("Rounds").selectOption("2");
      await send(page, "list my refinement loops and record how the plan looks");

      assert.equal(await page.getByRole("alert").isHidden(), true);
      // Context: the first turn's reply is the recent message, its question a semantic match.
      const recent = await page.locator("#recent li").allTextContents();
      assert.match(recent.join("\n"), /^assistant: /);
      const matches = await page.locator("#matches li").allTextContents();
      assert.ok(
        matches.some((t) => /^user: list my refinement loops \(similarity 0\.\d{3}\)$/.test(t)),
        matches.join("\n"),
      );
      // The plan of each round and every step with tool, args, output, duration, status.
      const plans = await page.locator("#plans li").allTextContents();
      assert.match(plans[0], /^Round 1: list_active_loops/);
      const rows = page.locator("#steps tr");
      assert.ok(await rows.count() >= 1);
      const first = await rows.first().locator("td").allTextContents();
      assert.equal(first[2], "list_active_loops");
      assert.match(first[4], /^loops:/m);
      assert.match(first[5], /^\d+ ms$/);
      assert.equal(first[6], "ok");
      // The score history against the threshold, and the outcome.
      assert.ok(await page.locator("#score-chart circle.score-point").count() >= 1);
      assert.ok(await page.locator("#score-chart line[data-threshold]").count() === 1);
      assert.match(
        await page.locator("#score-feedback").textContent() ?? "",
        /^Round \d: \d+\/100/,
      );
      // The offline reply: a sentence per step, the listing readable.
      assert.match(
        await page.locator("#summary").textContent() ?? "",
        /You have \d+ refinement loops?, newest first:\n- [0-9a-f]{8} \(plan\)/,
      );
      assert.match(await page.locator("#outcome").textContent() ?? "", /round\(s\), stopped: /);
      assert.deepEqual(errors, []);

      if (Deno.env.get("UPDATE_SCREENSHOT") === "1") {
        await page.screenshot({
          path: new URL("../../docs/playground.png", import.meta.url).pathname,
          fullPage: true,
        });
      }
    }),
});

Deno.test({
  name: "playground: without the access token the run fails readably, with it the run goes",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withPage(
      { overrides: overrides(), env: { MCP_LOOP_API_KEYS: `web=${API_KEY}` } },
      async (page, errors) => {
        await send(page, "hello");
        assert.match(await page.getByRole("alert").textContent() ?? "", /^AUTH_REQUIRED: /);
        await page.getByLabel("Access token").fill(API_KEY);
        await send(page, "hello");
        assert.equal(await page.getByRole("alert").isHidden(), true);
        assert.equal(await page.getByRole("status").textContent(), "Done.");
        // The browser logs the refused request itself; nothing else may fail.
        assert.ok(errors.every((e) => /401/.test(e)), errors.join("\n"));
      },
    ),
});

/** A read whose output is text with a line break and quotes, beside a nested record. */
const quoteTool = defineTool({
  name: "quote_line",
  description: "Quotes a line of dialogue",
  argsSchema: z.object({ speaker: z.string() }),
  annotations: { readOnlyHint: true },
  run: ({ args }) => ({
    quote: `${args.speaker} said "see you at nine"\nand hung up`,
    source: { act: 2, tags: ["phone", "evening"] },
  }),
});

Deno.test({
  name: "playground: at phone width the steps fit the screen, and text outputs read as text",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withPage({
      viewport: { width: 390, height: 844 },
      overrides: {
        planner: new ScriptedPlanner([
          { tool: "quote_line", args: { speaker: "Ines" } },
          { tool: "finalize_summary", args: {} },
        ]),
        tools: [quoteTool],
      },
    }, async (page, errors) => {
      await send(page, "what did she say on the phone");
      const pageWidth = await page.evaluate<number>("document.documentElement.scrollWidth");
      assert.ok(pageWidth <= 390, `the page is ${pageWidth} px wide`);
      const cells = await page.locator("#steps td").all();
      assert.ok(cells.length > 0);
      for (const cell of cells) {
        const box = (await cell.boundingBox())!;
        assert.ok(
          box.x >= 0 && box.x + box.width <= 390,
          `a cell spans ${box.x}..${box.x + box.width}`,
        );
      }
      const [, , tool, args, output] = await page.locator("#steps tr").first().locator("td")
        .allTextContents();
      assert.equal(tool, "quote_line");
      assert.equal(args, "speaker: Ines");
      assert.equal(
        output,
        'quote:\n  Ines said "see you at nine"\n  and hung up\nsource:\n  act: 2\n  tags:\n    - phone\n    - evening',
      );
      assert.deepEqual(errors, []);
    }),
});
