/**
 * The deployed bundle stays under Supabase's 5 MB for server-side bundling
 * (`supabase functions deploy --use-api`, the Dashboard), with room to spare:
 * the estimate of `deno task bench bundle` (tests/bench/bundle_bench.ts, within
 * about ±6 % of the sizes Supabase published, `deno task bench bundle_check`).
 * A size, not a timing.
 */
import assert from "node:assert/strict";
import { bundleEstimate } from "../bench/bundle_bench.ts";

/** The budget: the 5 MB limit less a margin for the estimate's error and the eszip's own parts. */
const BUDGET_BYTES = 4_500_000;

Deno.test("the deployed bundle's estimate stays within 4.5 MB brotli (Supabase's server-side limit is 5 MB)", async () => {
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
