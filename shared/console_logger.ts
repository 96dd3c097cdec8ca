/**
 * A `Logger` that writes one JSON line per entry to stderr, from a minimum
 * level up. Every line passes through a redactor first, so a key or token that
 * slipped into an error message never reaches the log.
 */
import type { LogLevel } from "./config.ts";
import type { Logger } from "./ports.ts";
import { redactKeyShapes } from "./redact.ts";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** Builds the console logger; `write` is injectable for tests. */
export function createConsoleLogger(
  { level = "info", write = (line: string) => console.error(line), redact = redactKeyShapes }: {
    level?: LogLevel;
    write?: (line: string) => void;
    /** Removes secrets from a finished line (default: anything shaped like a key or token). */
    redact?: (line: string) => string;
  } = {},
): Logger {
  const log =
    (entryLevel: Exclude<LogLevel, "silent">) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (RANK[entryLevel] < RANK[level]) return;
      write(redact(JSON.stringify({
        time: new Date().toISOString(),
        level: entryLevel,
        message,
        ...fields,
      })));
    };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}
