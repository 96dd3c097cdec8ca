/**
 * Zod without its cycle memoizer, for the processes this project owns (the
 * function and the stdio server import this first, before any schema exists).
 *
 * Zod 4.5+ wraps every container schema that can recurse (the MCP SDK's JSON
 * value schemas) in a memoizer so that it can parse *cyclic* input objects:
 * each parse allocates WeakMaps keyed by the input. Under load those
 * allocations survived V8's young-generation collections (measured with its
 * sampling heap profiler) and were promoted with what they reach; garbage
 * collection took a fifth to a third of an MCP call's CPU, and with the
 * memoizer off about a tenth (docs/benchmarks.md). Everything parsed here comes from
 * JSON — a request body, a model's reply, a remote server's answer — and JSON
 * has no cycles, so the memoizer has nothing to do; without it, parsing is
 * what it was before Zod 4.5. A cyclic object given to a schema would now
 * overflow the stack instead of being parsed.
 */
import { z } from "zod";

z.config({
  memoizer: {
    attach() {},
    guard() {},
    alloc: (_schema, _payload, empty) => empty,
  },
});
