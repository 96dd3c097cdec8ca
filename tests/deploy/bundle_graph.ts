/**
 * What Supabase's bundler puts in a function's eszip, computed from
 * `deno info --json`: the code-only module graph of the entry, and the whole
 * directory of every npm package that graph reaches, with those packages'
 * dependencies.
 *
 * Why code-only: supabase/edge-runtime's `bundle` builds its graph with
 * `TypeCheckMode::None`, i.e. `GraphKind::CodeOnly` (crates/deno_facade/graph.rs
 * `create_graph`), so `import type` and `typeof import("…")` are not followed,
 * while `deno info` shows them. Dynamic imports with a string literal or a
 * template literal are followed (they are `code` dependencies here); a
 * specifier held in a variable is not in the graph at all. Why whole package
 * directories: `build_npm_vfs` (crates/deno_facade/eszip/vfs.rs) adds every
 * resolved package with `add_dir_recursive`, every file, unfiltered.
 * (supabase/edge-runtime @ b1edf453b6ab52eba0cf8c495ed1881001d51c88; measured
 * in /work/research/bundle_size.md.)
 */

/** One module of `deno info --json`. */
interface InfoModule {
  specifier: string;
  kind?: string;
  local?: string;
  size?: number;
  npmPackage?: string;
  dependencies?: { specifier: string; code?: { specifier?: string } }[];
}

/** One npm package of `deno info --json` (`npmPackages`, keyed by id such as `openai@7.57.0_zod@4.6.7`). */
interface InfoNpmPackage {
  name: string;
  version: string;
  dependencies?: string[];
  localPath?: string;
}

/** The parts of `deno info --json` this reads. */
export interface DenoInfo {
  roots: string[];
  modules: InfoModule[];
  redirects?: Record<string, string>;
  npmPackages?: Record<string, InfoNpmPackage>;
}

/** An npm package in the bundle: its id, name, version and folder in Deno's cache. */
export interface BundledPackage {
  id: string;
  name: string;
  version: string;
  localPath?: string;
}

/** The code-only graph of an entry: the local modules it runs and the npm packages bundled. */
export interface DeployedGraph {
  /** Local modules (absolute paths), sorted. */
  modules: string[];
  /** Packages the modules import directly (ids), sorted. */
  npmRoots: string[];
  /** Those packages and everything they depend on, sorted by name. */
  npmPackages: BundledPackage[];
}

/** `deno info --json entrypoint`, run in `cwd` (so the project's deno.json and import map apply). */
export async function denoInfo(entrypoint: string, cwd: string | URL): Promise<DenoInfo> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entrypoint],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

/** The code-only closure of `info`'s roots: `code` edges only, then npm packages with their dependencies. */
export function codeOnlyClosure(info: DenoInfo): DeployedGraph {
  const modules = new Map(info.modules.map((module) => [module.specifier, module]));
  const redirect = (specifier: string) => {
    const seen = new Set<string>();
    while (info.redirects?.[specifier] && !seen.has(specifier)) {
      seen.add(specifier);
      specifier = info.redirects[specifier];
    }
    return specifier;
  };
  const visited = new Set<string>();
  const local = new Set<string>();
  const roots = new Set<string>();
  const stack = info.roots.map(redirect);
  while (stack.length > 0) {
    const specifier = stack.pop()!;
    if (visited.has(specifier)) continue;
    visited.add(specifier);
    const module = modules.get(specifier);
    if (!module) continue;
    if (module.kind === "npm" && module.npmPackage) {
      roots.add(module.npmPackage);
      continue;
    }
    if (module.local) local.add(module.local);
    for (const dependency of module.dependencies ?? []) {
      if (dependency.code?.specifier) stack.push(redirect(dependency.code.specifier));
    }
  }
  const packages = info.npmPackages ?? {};
  const reached = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (reached.has(id)) continue;
    reached.add(id);
    pending.push(...packages[id]?.dependencies ?? []);
  }
  const npmPackages = [...reached].map((id) => {
    const { name = id, version = "", localPath } = packages[id] ?? {};
    return { id, name, version, localPath };
  }).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  return { modules: [...local].sort(), npmRoots: [...roots].sort(), npmPackages };
}

/** The deployed graph of `entrypoint` (a path relative to `root`, the project root). */
export async function deployedGraph(
  entrypoint: string,
  root: string | URL,
): Promise<DeployedGraph> {
  return codeOnlyClosure(await denoInfo(entrypoint, root));
}
