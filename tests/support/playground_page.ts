/**
 * The playground in real headless Chromium (Debian's chromium driven by
 * playwright-core; CHROMIUM_PATH names another binary): a page of a running
 * test app that fails the test on any console or page error.
 */
import { type Browser, chromium, type Page } from "playwright-core";
import type { AppOverrides } from "../../shared/app/app.ts";
import { serve } from "./mcp_fixture.ts";
import { testApp } from "./test_app.ts";
import { PLAYGROUND_FILES } from "../../shared/local/playground_files.ts";
import { START_TIMEOUT_MS } from "./process.ts";

const CHROMIUM = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Whether there is a browser to run (else the tests are skipped, with a warning). */
export const hasChromium = (() => {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
})();
if (!hasChromium) {
  console.warn(
    `SKIPPED the playground browser tests: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
  );
}

/** The playground of an app built with `overrides` and `env`, once its script has started. */
export async function withPage(
  { overrides = {}, env = {}, viewport = { width: 1180, height: 1000 } }: {
    overrides?: AppOverrides;
    env?: Record<string, string>;
    viewport?: { width: number; height: number };
  },
  fn: (page: Page, errors: string[], app: ReturnType<typeof testApp>) => Promise<void>,
) {
  // The local server hands the playground its files; so does this app.
  const built = testApp({ playground: PLAYGROUND_FILES, ...overrides }, env);
  const server = serve(built.app);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    const page = await browser.newPage({ viewport });
    // A bound for a broken page, not a measure of speed: three suites on two cores are slow.
    page.setDefaultTimeout(START_TIMEOUT_MS);
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${server.base}/mcp-loop/playground`);
    await page.getByRole("status").filter({ hasText: "Ready." }).waitFor();
    await fn(page, errors, built);
  } finally {
    await browser?.close();
    await server.close();
  }
}

/** Types `message` and sends it (waits for nothing). */
export async function typeAndSend(page: Page, message: string) {
  await page.getByLabel("Message").fill(message);
  await page.getByRole("button", { name: "Send" }).click();
}

/** Waits until the status line says one of `texts`. */
export async function statusIs(page: Page, ...texts: string[]) {
  const pattern = new RegExp(`^(${texts.map((t) => t.replace(/[.?]/g, "\\$&")).join("|")})$`);
  await page.getByRole("status").filter({ hasText: pattern }).waitFor();
}
