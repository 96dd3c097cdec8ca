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
      const line = JSON.stringify({
        time: new Date().toISOString(),
        level: entryLevel,
        message,
        ...fields,
      });
      write(redact(line), entryLevel);
    };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}
