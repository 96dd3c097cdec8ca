/**
 * The deployed bundle stays under 2.5 MB (issue 35's target; Supabase's limit
 * for server-side bundling, `supabase functions deploy --use-api` and the
 * Dashboard, is 5 MB): the estimate of `deno task bench bundle` (tests/bench/bundle_bench.ts, within
 * about ±6 % of the sizes Supabase published, `deno task bench bundle_check`).
 * A size, not a timing.
 */
import assert from "node:assert/strict";
import { bundleEstimate } from "../bench/bundle_bench.ts";

/** The budget: 2.5 MB, half the server-side limit (boot time tracks the bundle's size). */
const BUDGET_BYTES = 2_500_000;

Deno.test("the deployed bundle's estimate stays within 2.5 MB brotli (Supabase's server-side limit is 5 MB)", async () => {
  const { total, packages } = await bundleEstimate();
  const largest = packages.slice().sort((a, b) => b.brotli - a.brotli).slice(0, 5)
    .map((pkg) => `${pkg.name} ${(pkg.brotli / 1e6).toFixed(2)} MB`).join(", ");
  assert.ok(
    total.brotli <= BUDGET_BYTES,
    `the bundle is estimated at ${(total.brotli / 1e6).toFixed(2)} MB brotli, over the ${
      BUDGET_BYTES / 1e6
    } MB budget; largest packages: ${largest} (deno task bench bundle)`,
  );
});
