/**
 * `deno task bench bundle`: the estimated size of the deployed function's
 * bundle, counted the way Supabase's bundler builds it (tests/deploy/bundle_graph.ts
 * says where each rule comes from):
 *
 * - the project's modules in the code-only graph of functions/mcp-loop/index.ts,
 *   file by file, each as the eszip holds it: a TypeScript module as Deno emits
 *   it, JavaScript with an inline source map that carries the TypeScript source
 *   (supabase/edge-runtime crates/deno_facade/emitter.rs: `SourceMapOption::Inline`,
 *   `inline_sources: true`), read from Deno's emit cache after a subprocess has
 *   loaded the modules; a JavaScript module as it is;
 * - every file of every npm package the graph reaches, with their dependencies
 *   (`build_npm_vfs` adds each package's folder with `add_dir_recursive`).
 *
 * The compressed figure is brotli at quality 6 with a 4 MB window, as the Supabase
 * CLI compresses the eszip it uploads and as it prints its size (supabase/cli
 * `pkg/function/bundle.go` `Compress`: andybalholm/brotli's `NewWriter`, level 6).
 * Not counted: the eszip's own headers, a checksum per entry, the virtual file
 * system's directory listing and the npm snapshot (tens of KB).
 *
 * `deno task bench bundle_check` runs the same count on the examples Supabase
 * published sizes for (bundle_check.ts).
 */
import { brotliCompressSync, constants } from "node:zlib";
import { join, relative } from "node:path";
import { type BundledPackage, deployedGraph } from "../deploy/bundle_graph.ts";
import { ROOT } from "../support/process.ts";

const ENTRYPOINT = "functions/mcp-loop/index.ts";
/** Supabase's documented limits (guides/functions/limits; troubleshooting "edge-function-bundle-size-issues"). */
const LIMITS = "20 MB bundled by the CLI (Docker), 5 MB bundled server-side (`--use-api`)";

/** The regular files under `dir` (symbolic links skipped), sorted. */
function filesUnder(dir: string, out: string[] = []): string[] {
  const entries = [...Deno.readDirSync(dir)].sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) filesUnder(path, out);
    else if (entry.isFile) out.push(path);
  }
  return out;
}

/** `bytes` compressed the way the CLI compresses an eszip; its compressed length. */
export function brotliSize(bytes: Uint8Array): number {
  return brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 6,
      [constants.BROTLI_PARAM_LGWIN]: 22,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  }).length;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** One group of bundled files: a folder of the project's modules, or one npm package. */
export interface Group {
  name: string;
  files: number;
  raw: number;
  brotli: number;
  bytes: Uint8Array;
}

function group(name: string, contents: readonly Uint8Array[]): Group {
  const bytes = concat(contents);
  return { name, files: contents.length, raw: bytes.length, brotli: brotliSize(bytes), bytes };
}

/** An npm package's group: every file of its folder in Deno's cache. */
export function packageGroup(pkg: BundledPackage): Group {
  if (!pkg.localPath) throw new Error(`npm package ${pkg.id} is not in Deno's cache`);
  return group(
    `${pkg.name}@${pkg.version}`,
    filesUnder(pkg.localPath).map((path) => Deno.readFileSync(path)),
  );
}

/** Deno's cache folder (`deno info --json`). */
async function denoDir(): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(output.stdout)).denoDir;
}

/**
 * Has Deno emit `modules` (absolute paths) into its cache by loading them in a
 * subprocess with the project's import map. The entries are left out (they serve
 * when loaded); every other module has no effect at import (DESIGN.md).
 */
async function emitModules(modules: readonly string[]): Promise<void> {
  const code = `for (const m of ${
    JSON.stringify(modules.map((m) => `file://${m}`))
  }) await import(m);`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-lock", `--import-map=${ROOT}import_map.json`, code],
    cwd: ROOT,
    env: { MCP_LOOP_LOG_LEVEL: "error" },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
}

/** A module as the eszip holds it: Deno's emit for TypeScript (cache metadata line cut), else as is. */
function asBundled(path: string, cache: string): Uint8Array {
  if (!/\.(ts|tsx|mts)$/.test(path)) return Deno.readFileSync(path);
  try {
    const emitted = Deno.readTextFileSync(join(cache, "gen", "file", `${path}.js`));
    return new TextEncoder().encode(emitted.replace(/\n\/\/ denoCacheMetadata=.*\s*$/, "\n"));
  } catch {
    return Deno.readFileSync(path); // an entry (not loaded): its source
  }
}

/** The folder a project module is counted in: `shared/<dir>`, or the file's own folder. */
function folderOf(path: string): string {
  const parts = relative(ROOT, path).split("/");
  return parts[0] === "shared" && parts.length > 2
    ? parts.slice(0, parts[1] === "vendor" ? 3 : 2).join("/")
    : parts.slice(0, -1).join("/") || ".";
}

/** The project's modules of the graph, grouped by folder, as the eszip holds them. */
async function projectGroups(modules: readonly string[], entries: readonly string[]) {
  await emitModules(modules.filter((module) => !entries.includes(module)));
  const cache = await denoDir();
  const byFolder = new Map<string, Uint8Array[]>();
  for (const module of modules) {
    const folder = folderOf(module);
    byFolder.set(folder, [...byFolder.get(folder) ?? [], asBundled(module, cache)]);
  }
  return [...byFolder].map(([name, contents]) => group(name, contents))
    .sort((a, b) => b.raw - a.raw);
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const row = (name: string, files: number, raw: number, brotli: number) =>
  `| ${name} | ${files.toLocaleString("en-US")} | ${mb(raw)} | ${mb(brotli)} |`;

/** The estimate of `entrypoint`'s bundle: the project's folders and the npm packages. */
export async function bundleEstimate(entrypoint = ENTRYPOINT, root: string = ROOT) {
  const graph = await deployedGraph(entrypoint, root);
  const entries = [join(root, entrypoint)];
  const project = await projectGroups(graph.modules, entries);
  const packages = graph.npmPackages.map(packageGroup).sort((a, b) => b.raw - a.raw);
  const total = concat([...project, ...packages].map((part) => part.bytes));
  return { project, packages, total: { raw: total.length, brotli: brotliSize(total) } };
}

/** The bundle's estimated size, as markdown: totals, then one row per folder and per package. */
export async function bundleBenchmarks(): Promise<string> {
  const { project, packages, total } = await bundleEstimate();
  const sum = (parts: Group[]) => {
    const bytes = concat(parts.map((part) => part.bytes));
    const files = parts.reduce((count, part) => count + part.files, 0);
    return { files, raw: bytes.length, brotli: brotliSize(bytes) };
  };
  const local = sum(project);
  const npm = sum(packages);
  return [
    `Entry ${ENTRYPOINT}; limits: ${LIMITS}.`,
    "",
    "| part | files | raw | brotli q6 |",
    "|---|---:|---:|---:|",
    row("project modules (as emitted)", local.files, local.raw, local.brotli),
    row(`npm packages (${packages.length}, every file)`, npm.files, npm.raw, npm.brotli),
    row("**bundle (estimate)**", local.files + npm.files, total.raw, total.brotli),
    "",
    "| folder or npm package | files | raw | brotli q6 |",
    "|---|---:|---:|---:|",
    ...[...project, ...packages].sort((a, b) => b.brotli - a.brotli)
      .map((part) => row(part.name, part.files, part.raw, part.brotli)),
  ].join("\n");
}
