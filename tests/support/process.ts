/**
 * Real processes for the tests of how the entries start, share a data folder
 * and stop: `deno task start` and `deno task mcp:stdio` spawned the way a
 * person or a desktop client runs them.
 */

/** The repository root. */
export const ROOT = new URL("../../", import.meta.url).pathname;

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
  /** Waits for a stdout line matching `test`. */
  waitForLine(test: (line: string) => boolean, timeoutMs?: number): Promise<string>;
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
  let wake = () => {};
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
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) errText += chunk;
  })();
  const writer = child.stdin.getWriter();
  let stdinOpen = true;
  const status = child.status;
  return {
    child,
    lines,
    stderr: () => errText,
    send: (message) => writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`)),
    sendRaw: (text) => writer.write(new TextEncoder().encode(`${text}\n`)),
    async waitForLine(test, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const found = lines.find(test);
        if (found) return found;
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
      throw new Error(`no matching line within ${timeoutMs} ms; stderr: ${errText.slice(-800)}`);
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

/** Polls `url` until it answers 200 (or gives up after `timeoutMs`). */
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
