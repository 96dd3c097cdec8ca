/**
 * The front door of the server `deno task start` runs: Deno's HTTP server has
 * no header-read or idle timeout and stops on an accept error such as
 * running out of file descriptors, so this owns the public socket and hands
 * each connection on to the HTTP server (on a Unix socket) once its first
 * request's headers are complete:
 *
 * - a connection whose request line and headers do not end within the header
 *   timeout gets `408` and is closed;
 * - a connection with no bytes either way for the idle timeout is closed;
 * - past the connection cap a new connection gets `503` with `Retry-After` and
 *   is closed, so the ones being served keep their descriptors;
 * - an accept that fails (`EMFILE` and the like) is logged and retried after a
 *   pause: the server refuses connections while it lacks descriptors and
 *   recovers afterwards, never exits.
 *
 * Later requests on a kept-alive connection are bounded by the idle timeout
 * only. Deployed, Supabase's platform owns the socket (its own proxy applies
 * its limits) and this is not used.
 */
import { describeError } from "../errors.ts";
import type { Logger } from "../ports.ts";

/** The guard's limits. */
export interface GuardLimits {
  /** Longest wait for a connection's first request line and headers (default 10 s). */
  headerTimeoutMs: number;
  /** A connection with no bytes either way this long is closed (default 120 s). */
  idleTimeoutMs: number;
  /** Most connections at once; more are answered 503 and closed (default 256). */
  maxConnections: number;
}

/** The defaults of {@link GuardLimits}. */
export const DEFAULT_GUARD_LIMITS: Readonly<GuardLimits> = Object.freeze({
  headerTimeoutMs: 10_000,
  idleTimeoutMs: 120_000,
  maxConnections: 256,
});

/** A running guard. */
export interface ConnectionGuard {
  readonly addr: Deno.NetAddr;
  /** Connections open now, refused so far, and accepts that failed. */
  stats(): { open: number; refused: number; acceptErrors: number; timedOut: number };
  close(): Promise<void>;
}

/**
 * The connection cap the process's free file descriptors allow: each
 * connection holds three (the client's, and both ends of the Unix socket to
 * the HTTP server), and the runtime keeps some for itself (modules, the
 * database, its threads). Running out fails more than accepts — the runtime
 * itself can stop — so the cap stays below it. The free descriptors are
 * counted by opening /dev/null until the limit or `wanted` is reached (the
 * limit itself is not readable without broader permissions).
 */
export function capForDescriptors(
  wanted: number,
  free = freeDescriptors(wanted * 3 + RESERVED),
): number {
  return Math.max(1, Math.min(wanted, Math.floor((free - RESERVED) / 3)));
}

/**
 * The process's free descriptors, as many as `limits` could use: count them
 * before starting anything that opens files (see `startConnectionGuard`'s `free`).
 */
export function freeDescriptorsFor(limits: GuardLimits): number {
  return freeDescriptors(limits.maxConnections * 3 + RESERVED);
}

/** Descriptors left for the runtime itself. */
const RESERVED = 32;

/** How many more files this process can open, counting up to `atMost`. */
export function freeDescriptors(atMost: number): number {
  const opened: Deno.FsFile[] = [];
  let known = true;
  try {
    while (opened.length < atMost) opened.push(Deno.openSync("/dev/null"));
  } catch (error) {
    // The limit; or no /dev/null or no permission to open it, and then nothing is known.
    known = !(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable ||
      error instanceof Deno.errors.PermissionDenied);
  } finally {
    for (const file of opened) file.close();
  }
  return known ? opened.length : atMost;
}

/** Largest request head accepted (431 above it). */
const MAX_HEAD_BYTES = 64 * 1024;
const END_OF_HEAD = new Uint8Array([13, 10, 13, 10]);

/** What a running guard keeps: the connections it serves, with their last activity, and its counts. */
interface GuardState {
  open: Map<Deno.Conn, { last: number }>;
  counts: { refused: number; acceptErrors: number; timedOut: number };
  closed: boolean;
}

/** Starts the guard on `hostname:port`, passing connections to the Unix socket at `upstream`. */
export function startConnectionGuard(
  { hostname, port, upstream, limits = DEFAULT_GUARD_LIMITS, logger, free }: {
    hostname: string;
    port: number;
    upstream: string;
    limits?: GuardLimits;
    logger: Logger;
    /**
     * Free descriptors, counted before anything else of the process started: counting takes
     * every free one for a moment, which fails a worker that opens a file meanwhile.
     */
    free?: number;
  },
): ConnectionGuard {
  const listener = Deno.listen({ hostname, port });
  const maxConnections = capForDescriptors(limits.maxConnections, free);
  if (maxConnections < limits.maxConnections) {
    logger.warn("the connection cap is lowered to what the open-file limit allows", {
      configured: limits.maxConnections,
      cap: maxConnections,
    });
  }
  const state: GuardState = {
    open: new Map(),
    counts: { refused: 0, acceptErrors: 0, timedOut: 0 },
    closed: false,
  };
  const sweep = sweepIdle(state, limits.idleTimeoutMs);
  const accepting = acceptConnections(listener, {
    state,
    maxConnections,
    serve: (conn, activity) =>
      serveConnection(conn, { upstream, limits, activity, counts: state.counts }),
    logger,
  });
  return {
    addr: listener.addr as Deno.NetAddr,
    stats: () => ({ open: state.open.size, ...state.counts }),
    async close() {
      state.closed = true;
      clearInterval(sweep);
      closeQuietly(listener);
      for (const conn of state.open.keys()) closeQuietly(conn);
      await accepting;
    },
  };
}

/** One timer for every connection's idle check: a connection idle too long is closed. */
function sweepIdle(
  { open, counts }: GuardState,
  idleTimeoutMs: number,
): ReturnType<typeof setInterval> {
  return setInterval(() => {
    const now = performance.now();
    for (const [conn, activity] of open) {
      if (now - activity.last > idleTimeoutMs) {
        counts.timedOut++;
        closeQuietly(conn);
      }
    }
  }, Math.min(1_000, idleTimeoutMs));
}

/**
 * Accepts connections until the guard closes: each one is served, past the
 * cap refused with 503, and a failed accept is logged (at most every 10 s) and retried.
 */
async function acceptConnections(
  listener: Deno.Listener,
  { state, maxConnections, serve, logger }: {
    state: GuardState;
    maxConnections: number;
    serve: (conn: Deno.Conn, activity: { last: number }) => Promise<void>;
    logger: Logger;
  },
): Promise<void> {
  const { open, counts } = state;
  let lastLogged = 0;
  while (!state.closed) {
    let conn: Deno.Conn;
    try {
      conn = await listener.accept();
    } catch (error) {
      if (state.closed || error instanceof Deno.errors.BadResource) return;
      counts.acceptErrors++;
      if (performance.now() - lastLogged > 10_000) {
        lastLogged = performance.now();
        logger.error("cannot accept connections; retrying", { error: describeError(error) });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    if (open.size >= maxConnections) {
      counts.refused++;
      // One refusal at a time: a flood of connections never holds more than one descriptor here.
      await answerAndClose(conn, "503 Service Unavailable", { "retry-after": "1" });
      continue;
    }
    const activity = { last: performance.now() };
    open.set(conn, activity);
    void serve(conn, activity).finally(() => open.delete(conn));
  }
}

/** Reads the first request's head in time, then joins the connection to the HTTP server. */
async function serveConnection(
  conn: Deno.Conn,
  { upstream, limits, activity, counts }: {
    upstream: string;
    limits: GuardLimits;
    activity: { last: number };
    counts: { timedOut: number };
  },
): Promise<void> {
  const head = await readHead(conn, limits.headerTimeoutMs, activity);
  if (head === "timeout") {
    counts.timedOut++;
    return await answerAndClose(conn, "408 Request Timeout");
  }
  if (head === "too_large") {
    return await answerAndClose(conn, "431 Request Header Fields Too Large");
  }
  if (head === "closed") return closeQuietly(conn);
  let server: Deno.UnixConn;
  try {
    server = await Deno.connect({ transport: "unix", path: upstream });
  } catch {
    return await answerAndClose(conn, "503 Service Unavailable", { "retry-after": "1" });
  }
  try {
    await writeAll(server, head);
    await Promise.all([copy(conn, server, activity), copy(server, conn, activity)]);
  } finally {
    closeQuietly(server);
    closeQuietly(conn);
  }
}

/** The bytes read up to and including the first blank line, or why there are none. */
async function readHead(
  conn: Deno.Conn,
  timeoutMs: number,
  activity: { last: number },
): Promise<Uint8Array | "timeout" | "too_large" | "closed"> {
  const buffer = new Uint8Array(MAX_HEAD_BYTES);
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    while (true) {
      if (size === buffer.length) return "too_large";
      const read = await Promise.race([
        conn.read(buffer.subarray(size)).catch(() => null),
        expired,
      ]);
      if (read === "timeout") return read;
      if (read === null) return "closed";
      const from = Math.max(0, size - 3);
      size += read;
      activity.last = performance.now();
      if (indexOf(buffer.subarray(from, size), END_OF_HEAD) >= 0) return buffer.slice(0, size);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Copies `from` to `to` until either ends, noting each read as activity. */
async function copy(from: Deno.Conn, to: Deno.Conn, activity: { last: number }): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  try {
    while (true) {
      const n = await from.read(buffer);
      if (n === null) break;
      activity.last = performance.now();
      await writeAll(to, buffer.subarray(0, n));
    }
  } catch {
    // a reset or a close from the other side ends the copy
  }
  try {
    await to.closeWrite();
  } catch {
    // already closed
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

async function answerAndClose(
  conn: Deno.Conn,
  status: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  try {
    await writeAll(
      conn,
      new TextEncoder().encode(
        `HTTP/1.1 ${status}\r\n${extra}connection: close\r\ncontent-length: 0\r\n\r\n`,
      ),
    );
  } catch {
    // the client is gone
  }
  closeQuietly(conn);
}

function closeQuietly(resource: { close(): void }): void {
  try {
    resource.close();
  } catch {
    // already closed
  }
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
