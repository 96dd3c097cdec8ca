/**
 * A handler built on its first request, so its imports load only when its
 * path is used — or earlier, by `load`, when the server has time to spare.
 */
import type { Handler } from "./router.ts";

/** A handler that builds itself once; a failed build is not kept, so the next request tries again. */
export function lazyHandler(
  build: () => Promise<Handler>,
): { handle: Handler; load(): Promise<void> } {
  let handler: Promise<Handler> | undefined;
  const load = () =>
    handler ??= build().catch((error) => {
      handler = undefined;
      throw error;
    });
  return {
    handle: async (req, trace) => (await load())(req, trace),
    load: async () => {
      await load();
    },
  };
}
