/**
 * `deno task bench boot`: how long the deployed entry takes to boot on the edge
 * runtime's Deno (2.1.4): a fresh process runs tests/edge/edge_runtime_harness.ts
 * in boot mode — `EdgeRuntime`, `Supabase.ai`, no disk, as deployed — which
 * imports functions/mcp-loop/index.ts, hands it one request from a signed-in
 * user and exits: a loop turn with OpenAI configured (the fake OpenAI API of
 * tests/fakes answers the plan, the summary and the embedding), or with
 * `--request mcp` an MCP `tools/list`. Reported per run: when the import finished and when
 * the answer was read (ms since the process's time origin), and the process's CPU
 * time by then (read from /proc/<pid>/stat while it waits to exit, in 10 ms ticks:
 * Deno's own start, the harness, the function). The database is a
 * Supabase-shaped PGlite served over the wire protocol from this process (its
 * CPU is not counted).
 *
 * `--vs DIR` alternates runs with the same entry of another checkout (e.g. the
 * commit before a change, exported with `git archive`): pairs, so both see the
 * machine in the same minutes; the ratios are taken pair by pair. A floor, an
 * entry that imports nothing (tests/bench/data/boot_floor_entry.ts), is booted
 * in each round too. `--runs N` (default 15).
 */
import { es256Key, es256Token, USER_A, userClaims } from "../auth/test_tokens.ts";
import { edgeDeno } from "../support/edge_runtime.ts";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";
import { serveFakeSupabase } from "../support/fake_supabase.ts";
import { servePglite } from "../support/pglite_socket.ts";
import { ROOT, spawnProcess } from "../support/process.ts";
import { migratedSupabasePglite } from "../support/supabase_shape.ts";

/** The floor's entry: Deno and the harness alone. */
const FLOOR_ENTRY = "tests/bench/data/boot_floor_entry.ts";

/** One boot's figures, as the harness prints them. */
interface Boot {
  importMs: number;
  answerMs: number;
  cpuMs: number;
  status: number;
  bootError?: string;
  answer: string;
}

/** The first request: a loop turn (the model's calls answered by the fake OpenAI API), or MCP tools/list. */
type RequestKind = "loop" | "mcp";

/** A checkout (its import map and readable folders) and the entry booted in it. */
interface BootTarget {
  label: string;
  root: string;
  /** Relative to `root` (default: the deployed entry). */
  entry?: string;
}

/** The `deno run` arguments that boot `target`'s entry under the harness (from this checkout). */
function bootArgs(target: BootTarget, authorization: string, kind: RequestKind): string[] {
  const headers = {
    "content-type": "application/json",
    accept: kind === "mcp" ? "application/json, text/event-stream" : "application/json",
    authorization,
  };
  const request = kind === "mcp"
    ? { path: "/mcp-loop/mcp", headers, body: { jsonrpc: "2.0", id: 1, method: "tools/list" } }
    : {
      path: "/mcp-loop",
      headers,
      body: {
        mode: "general",
        sessionId: `boot-${crypto.randomUUID()}`,
        messages: [{ role: "user", content: "What time is it in Tokyo?" }],
      },
    };
  return [
    "run",
    "--no-config",
    "--no-lock",
    `--import-map=${target.root}import_map.json`,
    "--allow-env",
    "--allow-net",
    `--allow-read=${target.root}functions,${target.root}shared,${target.root}tests/bench/data`,
    `${ROOT}tests/edge/edge_runtime_harness.ts`,
    new URL(target.entry ?? "functions/mcp-loop/index.ts", `file://${target.root}`).href,
    JSON.stringify(request),
  ];
}

/** CPU ms (user + system) a process has used so far, from /proc (10 ms ticks). */
function cpuMs(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Boots `target`'s entry once and reads its figures; the process exits when its stdin closes. */
async function bootOnce(
  denoPath: string,
  target: BootTarget,
  env: Record<string, string>,
  authorization: string,
  kind: RequestKind,
): Promise<Boot> {
  const process = spawnProcess(bootArgs(target, authorization, kind), {
    command: denoPath,
    cwd: target.root,
    clearEnv: true,
    env,
  });
  try {
    const line = await process.waitForLine((l) => l.startsWith("edge-harness boot "), 120_000)
      .catch((error) => {
        throw new Error(`${target.label}: no boot line (${error})\n${process.stderr()}`);
      });
    const boot = JSON.parse(line.slice("edge-harness boot ".length)) as Boot;
    boot.cpuMs = cpuMs(process.child.pid);
    if (boot.status !== 200 || boot.bootError) {
      throw new Error(`${target.label}: answered ${boot.status}: ${boot.bootError ?? boot.answer}`);
    }
    return boot;
  } finally {
    await process.closeStdin();
    await process.exited(10_000);
    await process.kill();
  }
}

/** Median, min and max of `values`, formatted. */
function spread(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return `${median.toFixed(0)} (${sorted[0].toFixed(0)}–${sorted.at(-1)!.toFixed(0)})`;
}

/** The settings a deployed function gets, pointing at the served database and fake project. */
async function deployedSettings() {
  const { db } = await migratedSupabasePglite();
  const database = await servePglite(db);
  const key = await es256Key("boot-bench-key");
  const supabase = serveFakeSupabase({ keys: [key] });
  const openai = FakeOpenAiServer.start();
  const token = await es256Token(key, userClaims(USER_A, { iss: `${supabase.url}/auth/v1` }));
  const env = {
    HOME: Deno.env.get("HOME") ?? "/root",
    ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    DENO_TLS_CA_STORE: "mozilla,system",
    NO_COLOR: "1",
    MCP_LOOP_LOG_LEVEL: "warn",
    SUPABASE_URL: supabase.url,
    SUPABASE_DB_URL: database.url,
    SUPABASE_PUBLISHABLE_KEYS: '{"default":"sb_publishable_boot_bench"}',
    SUPABASE_SECRET_KEYS: '{"default":"sb_secret_boot_bench_0123456789"}',
    OPENAI_API_KEY: "sk-boot-bench-0123456789abcdef",
    OPENAI_BASE_URL: openai.baseUrl,
  };
  const close = async () => {
    await openai.close();
    await supabase.close();
    await database.close();
  };
  return { env, authorization: `Bearer ${token}`, close };
}

/** Runs the boots (alternating with `--vs` when given) and returns a markdown table. */
export async function bootBenchmarks(args: readonly string[] = []): Promise<string> {
  const flag = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const runs = Number(flag("--runs") ?? 15);
  const kind = (flag("--request") ?? "loop") as RequestKind;
  const vs = flag("--vs");
  const edge = await edgeDeno();
  if (!edge.path) return `skipped: ${edge.reason}`;
  const targets: BootTarget[] = [
    { label: "floor (an entry that imports nothing)", root: ROOT, entry: FLOOR_ENTRY },
    { label: "this checkout", root: ROOT },
  ];
  if (vs) targets.splice(1, 0, { label: vs, root: vs.endsWith("/") ? vs : `${vs}/` });
  const settings = await deployedSettings();
  const boots = new Map(targets.map((target) => [target.label, [] as Boot[]]));
  try {
    for (const target of targets) {
      await bootOnce(edge.path, target, settings.env, settings.authorization, kind); // warm-up
    }
    for (let i = 0; i < runs; i++) {
      for (const target of targets) {
        boots.get(target.label)!.push(
          await bootOnce(edge.path, target, settings.env, settings.authorization, kind),
        );
      }
    }
  } finally {
    await settings.close();
  }
  return bootTable(targets, boots, { kind, runs, vs });
}

/** The boots as markdown: one row per target, and with `--vs` the pairs' median ratios. */
function bootTable(
  targets: readonly BootTarget[],
  boots: Map<string, Boot[]>,
  { kind, runs, vs }: { kind: RequestKind; runs: number; vs?: string },
): string {
  const columns = (
    list: Boot[],
  ) => [list.map((b) => b.importMs), list.map((b) => b.answerMs), list.map((b) => b.cpuMs)];
  const rows = targets.map((target) =>
    `| ${target.label} | ${columns(boots.get(target.label)!).map(spread).join(" | ")} |`
  );
  if (vs) {
    const [a, b] = [boots.get(vs)!, boots.get("this checkout")!].map(columns);
    const ratios = b.map((values, column) =>
      spread(values.map((value, i) => value / a[column][i] * 100))
    );
    rows.push(`| this checkout ÷ ${vs}, pair by pair (%) | ${ratios.join(" | ")} |`);
  }
  return [
    `Deno 2.1.4 (the edge runtime's); first request: ${
      kind === "mcp" ? "MCP tools/list" : "a loop turn, OpenAI configured (a fake API)"
    }; ${runs} runs each${vs ? ", alternating" : ""}; ` +
    "median (min–max), ms since the process's time origin; CPU of the whole process.",
    "",
    "| entry | import done | first answer | CPU at first answer |",
    "|---|---:|---:|---:|",
    ...rows,
  ].join("\n");
}

if (import.meta.main) console.log(await bootBenchmarks(Deno.args));
