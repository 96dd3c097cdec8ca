/**
 * Writes log lines to standard output off the request's path: lines queue in
 * memory and go out together in one write a few milliseconds later — each
 * still its own line, in order. Warnings and errors go out at once (after the
 * queued lines). Where standard output is the platform's log collector
 * (Supabase's edge runtime reads `console`), lines go to `console` one by one.
 */

/** Writes a line at a severity. */
export type LineSink = (line: string, level: "debug" | "info" | "warn" | "error") => void;

/** A sink with a queue: `flush` writes what is queued. */
export interface BufferedSink {
  write: LineSink;
  flush(): void;
}

/**
 * Builds the sink: debug/info lines queue for up to `delayMs` (or until
 * `maxLines`), then `out` gets them in one call; warn/error flush the queue
 * and go to `urgent` at once.
 */
export function bufferedSink(
  { out, urgent, delayMs = 5, maxLines = 256 }: {
    out: (text: string) => void;
    urgent: (line: string, level: "warn" | "error") => void;
    delayMs?: number;
    maxLines?: number;
  },
): BufferedSink {
  let queue: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (queue.length === 0) return;
    const text = `${queue.join("\n")}\n`;
    queue = [];
    out(text);
  };
  return {
    flush,
    write: (line, level) => {
      if (level === "warn" || level === "error") {
        flush();
        urgent(line, level);
        return;
      }
      queue.push(line);
      if (queue.length >= maxLines) flush();
      else if (timer === undefined) {
        timer = setTimeout(flush, delayMs);
        // A queued line never keeps the process alive; exit flushes it (see below).
        Deno.unrefTimer(timer);
      }
    },
  };
}

let stdoutSink: BufferedSink | undefined;

/**
 * The process's default sink: buffered standard output. On Supabase's edge
 * runtime the app writes through {@link consoleSink} instead (its log
 * collector reads `console`).
 */
export function defaultSink(): LineSink {
  if (!stdoutSink) {
    const encoder = new TextEncoder();
    const sink = bufferedSink({
      out: (text) => writeAll(encoder.encode(text)),
      urgent: (line, level) => level === "warn" ? console.warn(line) : console.error(line),
    });
    globalThis.addEventListener("unload", sink.flush);
    stdoutSink = sink;
  }
  return stdoutSink.write;
}

/** Writes everything now (before an exit that skips `unload`, and in tests). */
export function flushLogs(): void {
  stdoutSink?.flush();
}

/** `console`, a line at a time. */
export const consoleSink: LineSink = (line, level) => {
  if (level === "warn") console.warn(line);
  else if (level === "error") console.error(line);
  else console.log(line);
};

function writeAll(bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}
