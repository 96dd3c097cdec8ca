/**
 * Work that may finish after the response: on Supabase's edge runtime it is
 * handed to `EdgeRuntime.waitUntil`, so the isolate stays up until it is done.
 */

interface EdgeRuntimeGlobal {
  EdgeRuntime?: { waitUntil(promise: Promise<unknown>): void };
}

/** Lets `promise` outlive the response where the runtime would otherwise stop early. */
export function keepAlive(promise: Promise<unknown>): void {
  (globalThis as EdgeRuntimeGlobal).EdgeRuntime?.waitUntil(promise.catch(() => {}));
}
