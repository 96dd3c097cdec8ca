/**
 * `deno task bench bundle`: the estimated size of the deployed function's
 * bundle. The files are the code-only local modules of
 * functions/mcp-loop/index.ts and the whole directories of the npm packages
 * they reach (`tests/deploy/bundle_graph.ts` says why); the compressed figure
 * is brotli at quality 6 with a 4 MB window, as the Supabase CLI compresses
 * the eszip it uploads (supabase/cli `pkg/function/bundle.go` `Compress`:
 * andybalholm/brotli at its default level). An estimate: the eszip also holds
 * each TypeScript module transpiled with its source map, and its own headers.
 */
import { brotliCompressSync, constants } from "node:zlib";
import { join } from "node:path";
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

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** One group of bundled files: the local modules, or one npm package. */
interface Group {
  name: string;
  files: number;
  raw: number;
  brotli: number;
  bytes: Uint8Array;
}

function group(name: string, paths: readonly string[]): Group {
  const bytes = concat(paths.map((path) => Deno.readFileSync(path)));
  return { name, files: paths.length, raw: bytes.length, brotli: brotliSize(bytes), bytes };
}

function packageGroup(pkg: BundledPackage): Group {
  if (!pkg.localPath) throw new Error(`npm package ${pkg.id} is not in Deno's cache`);
  return group(`${pkg.name}@${pkg.version}`, filesUnder(pkg.localPath));
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

/** The bundle's estimated size, as markdown: totals, then one row per package. */
export async function bundleBenchmarks(): Promise<string> {
  const graph = await deployedGraph(ENTRYPOINT, ROOT);
  const local = group("local modules (sources)", graph.modules);
  const packages = graph.npmPackages.map(packageGroup).sort((a, b) => b.raw - a.raw);
  const npmBytes = concat(packages.map((pkg) => pkg.bytes));
  const npm = { raw: npmBytes.length, brotli: brotliSize(npmBytes) };
  const total = concat([local.bytes, npmBytes]);
  const row = (name: string, files: number, raw: number, brotli: number) =>
    `| ${name} | ${files.toLocaleString("en-US")} | ${mb(raw)} | ${mb(brotli)} |`;
  const files = packages.reduce((sum, pkg) => sum + pkg.files, 0);
  return [
    `Entry ${ENTRYPOINT}; limits: ${LIMITS}.`,
    "",
    "| part | files | raw | brotli q6 |",
    "|---|---:|---:|---:|",
    row(local.name, local.files, local.raw, local.brotli),
    row(`npm packages (${packages.length}, whole directories)`, files, npm.raw, npm.brotli),
    row("**bundle (estimate)**", local.files + files, total.length, brotliSize(total)),
    "",
    "| npm package | files | raw | brotli q6 |",
    "|---|---:|---:|---:|",
    ...packages.map((pkg) => row(pkg.name, pkg.files, pkg.raw, pkg.brotli)),
  ].join("\n");
}
