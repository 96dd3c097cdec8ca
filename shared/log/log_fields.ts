/** A logger that adds the same fields (a request id, a caller) to every entry. */
import type { Logger } from "../ports.ts";

/** `logger` with `fields` added to each entry (an entry's own fields win). Cheap to build per request. */
export function withLogFields(logger: Logger, fields: Record<string, unknown>): Logger {
  return {
    debug: (message, own) => logger.debug(message, { ...fields, ...own }),
    info: (message, own) => logger.info(message, { ...fields, ...own }),
    warn: (message, own) => logger.warn(message, { ...fields, ...own }),
    error: (message, own) => logger.error(message, { ...fields, ...own }),
  };
}
