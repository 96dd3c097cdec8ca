/**
 * Real processes for the tests of how the entries start, share a data folder
 * and stop: `deno task start` and `deno task mcp:stdio` spawned the way a
 * person or a desktop client runs them.
 */

/** The repository root. */
export const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * Runs `deno <args>` from the project's root and parses the last line it
 * prints as JSON; a failed run throws with its standard error.
 */
export async function lastJsonOfChild(args: string[]): Promise<unknown> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  const lines = new TextDecoder().decode(output.stdout).trim().split("\n");
  return JSON.parse(lines.at(-1)!);
}

/**
 * `deno task start`'s command run directly (`deno <SERVE_ARGS>`), so the server is this process's
 * own child and a signal (SIGKILL) reaches it rather than the task runner.
 */
export const SERVE_ARGS: readonly string[] = [
  "run",
  "--unstable-no-legacy-abort",
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-sys",
  "functions/mcp-loop/index.ts",
];

/**
 * The same server with options given in code (tests/support/serve_with_options.ts):
 * pass `MCP_LOOP_TEST_SERVE` as `serveOptionsEnv(...)` in the process's environment.
 */
export const SERVE_WITH_OPTIONS_ARGS: readonly string[] = [
  ...SERVE_ARGS.slice(0, -1),
  "tests/support/serve_with_options.ts",
];

/** The environment entry that hands `serve_with_options.ts` its options and guard limits. */
export function serveOptionsEnv(
  serve: { options?: Record<string, unknown>; connections?: Record<string, number> },
): Record<string, string> {
  return { MCP_LOOP_TEST_SERVE: JSON.stringify(serve) };
}

/**
 * How long a process may take to print what a test waits for before the test gives up: only a
 * broken process takes this long, though three copies of the suite on two cores come close.
 */
export const START_TIMEOUT_MS = 120_000;

/** A free TCP port on loopback. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A spawned entry with its output read line by line. */
export interface Spawned {
  child: Deno.ChildProcess;
  /** Lines of stdout so far (stdio entries: JSON-RPC messages). */
  lines: string[];
  /** Everything written to stderr so far. */
  stderr: () => string;
  /** Writes one JSON message as a line to stdin. */
  send(message: unknown): Promise<void>;
  /** Writes `text` and a newline to stdin as it is. */
  sendRaw(text: string): Promise<void>;
  /**
   * Waits for a stdout line matching `test`; fails when the output ends without one, or after
   * `timeoutMs` (a bound for a broken process, not a measure of speed).
   */
  waitForLine(test: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Waits for stderr to match `pattern` (same bounds as `waitForLine`). */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Closes stdin, as a client that goes away does. */
  closeStdin(): Promise<void>;
  /** The exit status, or undefined if it did not exit within `timeoutMs`. */
  exited(timeoutMs: number): Promise<Deno.CommandStatus | undefined>;
  /** Stops it (SIGKILL) if still running, and releases its streams. */
  kill(): Promise<void>;
}

/**
 * Spawns `command` (default: this Deno) with `args` in `cwd` (the repository), with `env` added
 * to this process's environment, or instead of it with `clearEnv`.
 */
export function spawnProcess(
  args: string[],
  { env = {}, command = Deno.execPath(), cwd = ROOT, clearEnv = false }: {
    env?: Record<string, string>;
    command?: string;
    cwd?: string;
    clearEnv?: boolean;
  } = {},
): Spawned {
  const child = new Deno.Command(command, {
    args,
    cwd,
    clearEnv,
    env: { MCP_LOOP_LOG_LEVEL: "warn", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  let errText = "";
  let ended = false;
  const wakers = new Set<() => void>();
  const wake = () => {
    for (const waker of wakers) waker();
  };
  const reading = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop()!;
      lines.push(...parts.filter((line) => line.trim() !== ""));
      wake();
    }
  })();
  const readingErr = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      errText += chunk;
      wake();
    }
  })();
  void Promise.allSettled([reading, readingErr]).then(() => {
    ended = true;
    wake();
  });
  /** Resolves with `found()` once it is defined, after each chunk of output. */
  async function until<T>(found: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const timeout = new Promise<void>((resolve) =>
      timer = setTimeout(() => {
        timedOut = true;
        resolve();
      }, timeoutMs)
    );
    try {
      for (;;) {
        const value = found();
        if (value !== undefined) return value;
        if (ended || timedOut) {
          throw new Error(
            `${what} ${ended ? "before the output ended" : `within ${timeoutMs} ms`}; stderr: ${
              errText.slice(-800)
            }`,
          );
        }
        let waker = () => {};
        const woken = new Promise<void>((resolve) => waker = resolve);
        wakers.add(waker);
        await Promise.race([woken, timeout]);
        wakers.delete(waker);
      }
    } finally {
      clearTimeout(timer);
    }
  }
  const writer = child.stdin.getWriter();
  let stdinOpen = true;
  const status = child.status;
  return {
    child,
    lines,
    stderr: () => errText,
    send: (message) => writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`)),
    sendRaw: (text) => writer.write(new TextEncoder().encode(`${text}\n`)),
    waitForLine: (test, timeoutMs = START_TIMEOUT_MS) =>
      until(() => lines.find(test), "no matching line", timeoutMs),
    waitForStderr: async (pattern, timeoutMs = START_TIMEOUT_MS) => {
      await until(() => pattern.test(errText) || undefined, `no ${pattern} on stderr`, timeoutMs);
    },
    async closeStdin() {
      if (!stdinOpen) return;
      stdinOpen = false;
      await writer.close().catch(() => {});
    },
    async exited(timeoutMs) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), timeoutMs);
      });
      const result = await Promise.race([status, timeout]);
      clearTimeout(timer);
      return result;
    },
    async kill() {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await status;
      if (stdinOpen) await writer.close().catch(() => {});
      await Promise.all([reading.catch(() => {}), readingErr.catch(() => {})]);
    },
  };
}

/**
 * Waits until a server started like `deno task start` listens and its database is ready: the
 * line it prints once listening, then the "database ready" entry of its log (written at the
 * `info` level, which the server must be started with).
 */
export async function untilReady(server: Spawned, timeoutMs = START_TIMEOUT_MS): Promise<void> {
  await server.waitForLine((line) => line.includes("listening on"), timeoutMs);
  await server.waitForLine((line) => line.includes('"database ready"'), timeoutMs);
}

/**
 * Polls `url` until it answers 200 (or gives up after `timeoutMs`): for benchmarks that start a
 * server without reading its output. Tests wait for what the server prints (`untilReady`).
 */
export async function waitUntilOk(url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

/** Folders to delete when the test process ends (a data folder is 40–60 MB). */
const leftovers = new Set<string>();
globalThis.addEventListener("unload", () => {
  for (const dir of leftovers) {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch {
      // already gone
    }
  }
});

/** A new temporary folder, deleted when the test process ends. */
export async function tempDirRemovedAtExit(prefix: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  leftovers.add(dir);
  return dir;
}

/**
 * A PGlite data folder with the migrations applied: a copy of one made once from the tests'
 * dump (see pglite.ts), since a first start takes seconds and copying does not.
 */
export async function initializedDataDir(): Promise<string> {
  const { migratedDataDir } = await import("./pglite.ts");
  const source = await migratedDataDir();
  const copy = await tempDirRemovedAtExit("mcp-loop-data-");
  const status = await new Deno.Command("cp", { args: ["-a", `${source}/.`, copy] }).output();
  if (!status.success) throw new Error(`could not copy ${source}`);
  return copy;
}

/** The initialize request of a 2025-11-25 client. */
export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "process-test", version: "1" },
  },
};

/**
 * Runs `code` with `deno eval` from the repository root (so its import map
 * applies) and returns its trimmed standard output; fails unless it exits 0.
 */
export async function evalOutput(
  code: string,
  { ext = "ts" }: { ext?: "ts" | "js" } = {},
): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", `--ext=${ext}`, code],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (output.code !== 0) throw new Error(`deno eval exited with ${output.code}`);
  return new TextDecoder().decode(output.stdout).trim();
}
