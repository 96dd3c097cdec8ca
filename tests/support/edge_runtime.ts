/**
 * The deployed entry run the way Supabase's Edge Runtime runs it
 * (`tests/edge/edge_runtime_harness.ts`), on the Deno release the runtime
 * embeds, installed through npm on first use.
 */
import { ROOT, type Spawned, spawnProcess } from "./process.ts";

/**
 * The Deno release of Supabase's Edge Runtime: supabase/edge-runtime builds on
 * deno_core 0.324 (Deno 2.1.x, V8 13.0).
 */
export const EDGE_DENO_VERSION = "2.1.4";

let located: Promise<{ path?: string; reason?: string }> | undefined;

/**
 * The edge runtime's Deno executable (`npx --yes deno@2.1.4`), or why it is not
 * available (no npm, no registry).
 */
export function edgeDeno(): Promise<{ path?: string; reason?: string }> {
  located ??= (async () => {
    try {
      const output = await new Deno.Command("npx", {
        args: [
          "--yes",
          `deno@${EDGE_DENO_VERSION}`,
          "eval",
          "--no-config",
          "console.log(Deno.execPath())",
        ],
        cwd: "/",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(180_000),
      }).output();
      const path = new TextDecoder().decode(output.stdout).trim().split("\n").at(-1);
      if (output.success && path) return { path };
      const stderr = new TextDecoder().decode(output.stderr).trim().split("\n").at(-1);
      return { reason: `npx --yes deno@${EDGE_DENO_VERSION} failed: ${stderr}` };
    } catch (error) {
      return { reason: `npx --yes deno@${EDGE_DENO_VERSION} could not run: ${error}` };
    }
  })();
  return located;
}

/** What the harness recorded (see the harness's `state`). */
export interface EdgeState {
  deno: string;
  fileAccess: { api: string; path: string }[];
  processCalls: string[];
  serveCalls: number;
  waitUntil: { calls: number; settled: number; rejected: number };
  workerGlobal: boolean;
  bootError?: string;
}

/** A function running under the harness. */
export interface EdgeFunction {
  /** Where requests reach it: `${url}/mcp-loop`, `${url}/mcp-loop/mcp`. */
  url: string;
  /** What the harness recorded so far. */
  state(): Promise<EdgeState>;
  /** Waits for every `EdgeRuntime.waitUntil` promise, then returns the state. */
  settle(): Promise<EdgeState>;
  process: Spawned;
  stop(): Promise<void>;
}

/**
 * Starts `entry` (default: the deployed function) under the harness with only
 * `env` in its environment, as the platform gives a function only its own
 * settings.
 */
export async function startEdgeFunction(
  denoPath: string,
  { env, entry = "functions/mcp-loop/index.ts" }: {
    env: Record<string, string>;
    entry?: string;
  },
): Promise<EdgeFunction> {
  const process = spawnProcess([
    "run",
    "--no-config",
    "--no-lock",
    "--import-map=import_map.json",
    "--allow-env",
    "--allow-net",
    // What a deployed bundle holds, for the module loader (`supabase/`, the migrations, is not
    // in it). The harness refuses the function's own file calls whatever the permissions.
    `--allow-read=${ROOT}functions,${ROOT}shared`,
    "tests/edge/edge_runtime_harness.ts",
    new URL(entry, `file://${ROOT}`).href,
  ], {
    command: denoPath,
    clearEnv: true,
    // HOME and DENO_DIR: where the runtime's Deno finds the npm packages already fetched. A
    // package this older Deno resolves and the newer one did not (supabase-js's optional
    // peers) is fetched: through the machine's certificate store, where a proxy's CA lives.
    env: {
      HOME: Deno.env.get("HOME") ?? "/root",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
      DENO_TLS_CA_STORE: "mozilla,system",
      NO_COLOR: "1",
      ...env,
    },
  });
  let line: string;
  try {
    line = await process.waitForLine((text) => text.startsWith("edge-harness listening "), 60_000);
  } catch (error) {
    await process.kill();
    throw error;
  }
  const url = `http://127.0.0.1:${line.split(" ").at(-1)}`;
  const read = async (path: string, method: string) => {
    const res = await fetch(`${url}${path}`, { method });
    return await res.json() as EdgeState;
  };
  return {
    url,
    state: () => read("/__edge/state", "GET"),
    settle: () => read("/__edge/settle", "POST"),
    process,
    stop: () => process.kill(),
  };
}
