/**
 * Runs a function's entry module the way Supabase's Edge Runtime runs a user
 * worker, as far as a Deno process can: started by `tests/support/edge_runtime.ts`
 * on the Deno release the runtime embeds (2.1.x), with the import map alone
 * (as `config.toml`'s `import_map`), `--allow-env --allow-net` and nothing else.
 * Before the entry is imported it installs what supabase/edge-runtime's
 * bootstrap installs for a user worker (ext/runtime/js/bootstrap.js,
 * namespaces.js, async_hook.js, http.js):
 *
 * - `EdgeRuntime`, a getter-defined global whose only member is `waitUntil`
 *   (recorded here: the runtime keeps the isolate alive until they settle);
 * - `Deno.serve` replaced: it takes the handler (`Deno.serve(handler)`,
 *   `(options, handler)` or `{handler}`), calls `onListen` with 0.0.0.0:9999,
 *   returns `{finished, shutdown, ref, unref}` (no `addr`), and each request is
 *   handed to `handler(request, {remoteAddr})`; a throw is logged and answered
 *   500 "Internal Server Error", a non-Response 502 "Bad Gateway";
 * - `Deno.exit`, `Deno.kill`, `Deno.addSignalListener` and
 *   `Deno.removeSignalListener` do nothing;
 * - no `Worker`;
 * - Deno's file APIs throw PermissionDenied. The runtime lets a function read
 *   its own bundle; here every file access is recorded and refused, so a
 *   function that needs its files fails the test.
 *
 * Requests reach the function through a loopback server this harness starts
 * (the runtime's main worker forwards them the same way); it also answers
 * `GET /__edge/state` (what was recorded) and `POST /__edge/settle` (waits for
 * every `waitUntil` promise, as the runtime does before it lets an isolate go).
 * It prints `edge-harness listening <port>` once the entry has been evaluated.
 */

/** The entry module, as an absolute file URL (the harness reads no cwd: it has no read permission). */
const entry = new URL(Deno.args[0]);
/**
 * Boot mode (tests/bench/boot_bench.ts): a request as JSON (`{path, method?, headers?, body?}`).
 * The harness then starts no server: it imports the entry, hands it that one request, prints
 * `edge-harness boot {...}` (milliseconds since the process's time origin) and exits when its
 * standard input closes (so the bench can read the process's CPU time first).
 */
const bootRequest = Deno.args[1] ? JSON.parse(Deno.args[1]) as BootRequest : undefined;
const realServe = Deno.serve.bind(Deno);
const realExit = Deno.exit.bind(Deno);

interface BootRequest {
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** What the harness saw the function do. */
const state = {
  /** The Deno release running the function. */
  deno: Deno.version.deno,
  /** Deno file API calls (all refused). */
  fileAccess: [] as { api: string; path: string }[],
  /** Calls of the mocked process APIs. */
  processCalls: [] as string[],
  serveCalls: 0,
  /** `EdgeRuntime.waitUntil`: promises handed over, settled so far, rejected. */
  waitUntil: { calls: 0, settled: 0, rejected: 0 },
  /** Whether a `Worker` global exists (the runtime has none). */
  workerGlobal: false,
  /** The entry's evaluation error, if it threw. */
  bootError: undefined as string | undefined,
};
const backgroundWork: Promise<unknown>[] = [];

// The file APIs the runtime overrides for user workers (denoOverrides.js `fsVars`, and the ones
// bootstrap.js sets per name).
const FILE_APIS = [
  "writeFileSync",
  "writeFile",
  "writeTextFileSync",
  "writeTextFile",
  "readTextFile",
  "readTextFileSync",
  "readFile",
  "readFileSync",
  "chmodSync",
  "chmod",
  "chown",
  "chownSync",
  "copyFileSync",
  "cwd",
  "makeTempDirSync",
  "makeTempDir",
  "makeTempFileSync",
  "makeTempFile",
  "mkdirSync",
  "mkdir",
  "chdir",
  "copyFile",
  "readDirSync",
  "readDir",
  "readLinkSync",
  "readLink",
  "realPathSync",
  "realPath",
  "removeSync",
  "remove",
  "renameSync",
  "rename",
  "statSync",
  "lstatSync",
  "stat",
  "lstat",
  "truncateSync",
  "truncate",
  "open",
  "openSync",
  "create",
  "createSync",
  "symlink",
  "symlinkSync",
  "link",
  "linkSync",
  "utime",
  "utimeSync",
];
const deno = Deno as unknown as Record<string, unknown>;
for (const api of FILE_APIS) {
  deno[api] = (...args: unknown[]) => {
    state.fileAccess.push({ api, path: String(args[0] ?? "") });
    throw new Deno.errors.PermissionDenied(`Deno.${api} is blocklisted`);
  };
}
for (const api of ["exit", "kill", "addSignalListener", "removeSignalListener"]) {
  deno[api] = (...args: unknown[]) => {
    state.processCalls.push(`${api}(${args.map((arg) => JSON.stringify(arg)).join(", ")})`);
  };
}
delete (globalThis as { Worker?: unknown }).Worker;

const edgeRuntime = {
  waitUntil<T>(maybePromise: T): T {
    if (maybePromise instanceof Promise) {
      state.waitUntil.calls++;
      backgroundWork.push(
        maybePromise.then(
          () => state.waitUntil.settled++,
          () => {
            state.waitUntil.settled++;
            state.waitUntil.rejected++;
          },
        ),
      );
    }
    return maybePromise;
  },
};
Object.defineProperty(globalThis, "EdgeRuntime", { get: () => edgeRuntime, configurable: true });

/**
 * `Supabase.ai.Session`, as the runtime installs it for user workers
 * (supabase/edge-runtime ext/ai/js/ai.js): `new Session("gte-small")` runs the
 * built-in embedding model in the isolate; `run(text, {mean_pool, normalize})`
 * answers its 384 numbers. Here the numbers are a deterministic stand-in (the
 * text's character trigrams hashed into 384 buckets, normalised), not gte-small's
 * meaning: the test is of the wiring, its shapes and its refusals. Another model
 * name, or an input that is not a string, is refused as the runtime refuses it.
 */
class EdgeAiSession {
  readonly #model: string;
  constructor(model: string) {
    if (model !== "gte-small") {
      throw new Error(`unsupported model "${model}" for an embedding session`);
    }
    this.#model = model;
  }
  run(input: unknown, { mean_pool = false, normalize = false } = {}): Promise<number[]> {
    if (typeof input !== "string") return Promise.reject(new TypeError("input must be a string"));
    if (!mean_pool) return Promise.reject(new Error(`${this.#model}: only mean_pool output here`));
    const vector = new Array<number>(384).fill(0);
    const text = ` ${input.toLowerCase()} `;
    for (let i = 0; i + 3 <= text.length; i++) {
      let hash = 2166136261;
      for (const char of text.slice(i, i + 3)) {
        hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
      }
      vector[(hash >>> 0) % 384] += 1;
    }
    const norm = Math.hypot(...vector) || 1;
    return Promise.resolve(normalize ? vector.map((value) => value / norm) : vector);
  }
}
Object.defineProperty(globalThis, "Supabase", {
  value: Object.freeze({ ai: Object.freeze({ Session: EdgeAiSession }) }),
  configurable: true,
});

type Handler = (request: Request, info: unknown) => Response | Promise<Response>;
let handler: Handler | undefined;

deno.serve = (first: unknown, second: unknown) => {
  state.serveCalls++;
  const options = typeof first === "object" && first !== null
    ? first as { handler?: Handler; onListen?: (addr: unknown) => void }
    : {};
  const found = typeof first === "function"
    ? first
    : typeof second === "function"
    ? second
    : options.handler;
  if (typeof found !== "function") throw new TypeError("A handler function must be provided.");
  handler = found as Handler;
  options.onListen?.({ hostname: "0.0.0.0", port: 9999 });
  return {
    finished: new Promise(() => {}),
    shutdown: () => {},
    ref: () => {},
    unref: () => {},
  };
};

/** Hands a request to the function as the runtime's `respond` does. */
async function toFunction(request: Request): Promise<Response> {
  if (!handler) {
    return Response.json({
      code: "BOOT_ERROR",
      message: state.bootError ?? "the function did not call Deno.serve",
    }, { status: 503 });
  }
  let response: unknown;
  try {
    response = await handler(request, {
      remoteAddr: { port: 9999, hostname: "0.0.0.0", transport: "tcp" },
    });
  } catch (error) {
    console.error(error);
    return new Response("Internal Server Error", { status: 500 });
  }
  if (!(response instanceof Response)) return new Response("Bad Gateway", { status: 502 });
  // What the runtime would still be keeping alive when this answer leaves.
  const pending = state.waitUntil.calls - state.waitUntil.settled;
  const headers = new Headers(response.headers);
  headers.set("x-edge-harness-pending-background", String(pending));
  return new Response(response.body, { status: response.status, headers });
}

/** Boot mode: the entry imported, one request answered, the figures printed, the process ended. */
async function bootOnce(request: BootRequest): Promise<void> {
  try {
    await import(entry.href);
  } catch (error) {
    state.bootError = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
  const imported = performance.now();
  const { path, method = "POST", headers = {}, body } = request;
  const response = await toFunction(
    new Request(`http://127.0.0.1:9999${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  const answered = performance.now();
  console.log(`edge-harness boot ${
    JSON.stringify({
      importMs: imported,
      answerMs: answered,
      status: response.status,
      bootError: state.bootError,
      answer: text.slice(0, 200),
    })
  }`);
  for await (const _ of Deno.stdin.readable) { /* until the bench closes it */ }
  realExit(0);
}

if (bootRequest) await bootOnce(bootRequest);

const server = realServe(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/__edge/state") {
      return Response.json({ ...state, workerGlobal: "Worker" in globalThis });
    }
    if (path === "/__edge/settle") {
      // New background work may start while earlier work settles (a batch after a batch).
      while (backgroundWork.length > 0) await Promise.all(backgroundWork.splice(0));
      return Response.json({ ...state, workerGlobal: "Worker" in globalThis });
    }
    return await toFunction(request);
  },
);

try {
  await import(entry.href);
} catch (error) {
  state.bootError = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  console.error(`edge-harness: the entry threw while it was evaluated: ${state.bootError}`);
}
console.log(`edge-harness listening ${(server.addr as Deno.NetAddr).port}`);
