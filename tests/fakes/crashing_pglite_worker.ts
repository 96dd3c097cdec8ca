/**
 * The real PGlite worker, except that the statement `select 'crash'` makes it
 * die with an uncaught error (to test recovery from a dead worker).
 */
/// <reference lib="deno.worker" />
import "../../shared/adapters/pglite/pglite_worker.ts";

const real = self.onmessage as (event: MessageEvent) => unknown;
self.onmessage = (event: MessageEvent) => {
  if (event.data?.op === "query" && event.data.text === "select 'crash'") {
    throw new Error("simulated worker crash");
  }
  return real(event);
};
