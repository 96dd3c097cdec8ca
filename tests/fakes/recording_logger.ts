/** A logger for tests that keeps every entry. */
import type { Logger } from "../../shared/ports.ts";

/** One recorded entry. */
export interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields?: Record<string, unknown>;
}

/** A logger whose `entries` tests can inspect. */
export class RecordingLogger implements Logger {
  readonly entries: LogEntry[] = [];
  debug(message: string, fields?: Record<string, unknown>) {
    this.entries.push({ level: "debug", message, fields });
  }
  info(message: string, fields?: Record<string, unknown>) {
    this.entries.push({ level: "info", message, fields });
  }
  warn(message: string, fields?: Record<string, unknown>) {
    this.entries.push({ level: "warn", message, fields });
  }
  error(message: string, fields?: Record<string, unknown>) {
    this.entries.push({ level: "error", message, fields });
  }
}
