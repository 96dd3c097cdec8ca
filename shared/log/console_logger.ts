/**
 * A `Logger` that writes one JSON line per entry, from a minimum level up:
 * debug and info to standard output (queued and written together, off the
 * request's path; see line_writer.ts), warnings and errors at once to stderr
 * — on Supabase's edge runtime through `console.log`/`warn`/`error`, so its
 * log viewer shows each at its severity. Every line passes through a redactor
 * first, so a key or token that slipped into an error message never reaches
 * the log.
 */
import type { Logger } from "../ports.ts";
import { defaultSink } from "./line_writer.ts";
import { redactKeyShapes } from "./redact.ts";

/** Log verbosity (`MCP_LOOP_LOG_LEVEL`). */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

/** A level that entries are written at. */
export type EntryLevel = Exclude<LogLevel, "silent">;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** Everything to stderr: for the stdio entry, whose stdout carries the protocol. */
export const WRITE_TO_STDERR = (line: string): void => console.error(line);

/** Builds the console logger; `write` is injectable for tests. */
export function createConsoleLogger(
  {
    level = "info",
    write = defaultSink(),
    redact = redactKeyShapes,
  }: {
    level?: LogLevel;
    write?: (line: string, level: EntryLevel) => void;
    /** Removes secrets from a finished line (default: anything shaped like a key or token). */
    redact?: (line: string) => string;
  } = {},
): Logger {
  const log =
    (entryLevel: EntryLevel) => (message: string, fields: Record<string, unknown> = {}) => {
      if (RANK[entryLevel] < RANK[level]) return;
      write(redact(toLine(entryLevel, message, fields)), entryLevel);
    };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

/**
 * One entry as a JSON line: time, level and message first, then the fields.
 * The fields are serialised on their own and spliced in (half the cost of
 * spreading them into a new object, on a line written per request); a field
 * named like one of the first three replaces it, as in a spread.
 */
function toLine(level: EntryLevel, message: string, fields: Record<string, unknown>): string {
  const time = new Date().toISOString();
  if ("time" in fields || "level" in fields || "message" in fields) {
    return JSON.stringify({ time, level, message, ...fields });
  }
  const rest = JSON.stringify(fields);
  const head = `{"time":"${time}","level":"${level}","message":${JSON.stringify(message)}`;
  return rest.length > 2 ? `${head},${rest.slice(1)}` : `${head}}`;
}
