/** A logger that adds the same fields (a request id, a caller) to every entry. */
import type { Logger } from "./ports.ts";

/** `logger` with `fields` added to each entry (an entry's own fields win). */
export function withLogFields(logger: Logger, fields: Record<string, unknown>): Logger {
  const wrap = (log: Logger["info"]) => (message: string, own?: Record<string, unknown>) =>
    log(message, { ...fields, ...own });
  return {
    debug: wrap(logger.debug.bind(logger)),
    info: wrap(logger.info.bind(logger)),
    warn: wrap(logger.warn.bind(logger)),
    error: wrap(logger.error.bind(logger)),
  };
}
