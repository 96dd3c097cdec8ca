/**
 * The files `supabase functions deploy --use-api` uploads (also what a deploy
 * uploads when Docker is not running), computed the way the Supabase CLI
 * computes them: no module graph, a regular expression over each file's text.
 *
 * Re-implemented from supabase/cli at commit
 * 1d1e7191268e068fe9cb6aba524d1c619a9c727b (2026-06-01), under `apps/cli-go/`:
 * - `pkg/function/deno.go`: `importPathPattern`, `ImportMap.WalkImportPaths`,
 *   `ImportMap.LoadAsDeno`/`Load`/`Resolve`, `resolveHostPath`, `isRelPath`,
 *   `isAbsPath`;
 * - `pkg/function/deploy.go`: `EdgeRuntimeAPI.Deploy` and `writeForm` with its
 *   `addFile`: the import map is uploaded first, then the `static_files`, then
 *   the walk from the entrypoint; a file that is "not found" is skipped with a
 *   `WARN`, every other failure to open (or a directory) aborts the upload;
 * - `internal/functions/deploy/deploy.go` `Run`: the files are read through
 *   `afero.NewIOFS(afero.NewOsFs())` (see `project_files.ts`), which refuses
 *   absolute paths with "invalid argument".
 *
 * One liberty: when more than one import-map key prefixes a specifier, Go's
 * randomised map order decides which substitutions apply; the walk follows
 * every order, so its upload set is the union of what any run uploads.
 */
import { base, clean, dir, ext, goRegExp, join, trimSpace } from "./go_semantics.ts";
import { OpenError, type ProjectFiles } from "./project_files.ts";
import { globFiles } from "./static_files.ts";

/** `importPathPattern` in `pkg/function/deno.go`, verbatim (Go RE2 syntax). */
export const CLI_IMPORT_PATH_PATTERN = String
  .raw`(?i)(?:import|export)\s+(?:type\s+)?(?:{[^{}]+}|.*?)\s*(?:from)?\s*['"](.*?)['"]|import\(\s*['"](.*?)['"]\)`;

/** The same pattern as a JS RegExp with Go's matches (see `goRegExp`). */
export const IMPORT_PATH_PATTERN: RegExp = goRegExp(CLI_IMPORT_PATH_PATTERN);

/** An import map after `ImportMap.Resolve`: local values relative to the project root. */
export interface CliImportMap {
  imports: Record<string, string>;
}

/** One match of the pattern the walk followed: where, what it read, where it went. */
export interface FollowedImport {
  from: string;
  specifier: string;
  target: string;
}

/** What the CLI uploads, what it skipped, and the error that stops it, if any. */
export interface UploadWalk {
  /** Paths uploaded, in upload order (relative to the project root). */
  uploaded: string[];
  /** `WARN:` lines the CLI prints and goes on after (files not found, globs without matches). */
  warnings: string[];
  /** Every pattern match the walk turned into a path to open. */
  followed: FollowedImport[];
  /** The error that aborts the deploy; the files after it are never uploaded. */
  abort?: string;
}

/** The inputs of `writeForm`, paths relative to the project root as `Deploy` passes them. */
export interface UploadInput {
  files: ProjectFiles;
  entrypoint: string;
  importMap?: string;
  staticFiles?: readonly string[];
}

/**
 * The upload `writeForm` builds: import map, static files, then the import walk.
 * @example
 * const walk = await collectUpload({ files: diskFiles("."), entrypoint: "functions/x/index.ts" });
 */
export async function collectUpload(
  { files, entrypoint, importMap: imPath = "", staticFiles = [] }: UploadInput,
): Promise<UploadWalk> {
  const walk: UploadWalk = { uploaded: [], warnings: [], followed: [] };
  let importMap: CliImportMap = { imports: {} };
  if (imPath) {
    try {
      importMap = await loadImportMap(files, imPath, walk.uploaded);
    } catch (error) {
      return { ...walk, abort: `failed to load import map: ${(error as Error).message}` };
    }
  }
  const globbed = await globFiles(files, staticFiles);
  walk.warnings.push(...globbed.errors);
  for (const path of globbed.files) {
    // Here every failure aborts, "not found" too.
    const opened = await addFile(files, path);
    if ("failure" in opened) return { ...walk, abort: opened.failure };
    walk.uploaded.push(path);
  }
  return await walkImportPaths({ files, entrypoint, importMap, walk });
}

/** `ImportMap.WalkImportPaths` with `addFile`: depth first from `entrypoint`. */
export async function walkImportPaths(
  { files, entrypoint, importMap, walk = { uploaded: [], warnings: [], followed: [] } }: {
    files: ProjectFiles;
    entrypoint: string;
    importMap: CliImportMap;
    walk?: UploadWalk;
  },
): Promise<UploadWalk> {
  const seen = new Set<string>();
  const stack = [entrypoint];
  while (stack.length > 0) {
    const curr = stack.pop()!;
    if (seen.has(curr)) continue;
    seen.add(curr);
    const opened = await addFile(files, curr);
    if ("failure" in opened) {
      if (!opened.notExist) return { ...walk, abort: opened.failure };
      walk.warnings.push(opened.failure);
      continue;
    }
    walk.uploaded.push(curr);
    const text = new TextDecoder().decode(opened.bytes);
    for (const followed of importTargets(text, curr, importMap)) {
      walk.followed.push(followed);
      stack.push(followed.target);
    }
  }
  return walk;
}

/** The paths the walk pushes for one file's text, in match order. */
export function importTargets(
  text: string,
  curr: string,
  importMap: CliImportMap,
): FollowedImport[] {
  const out: FollowedImport[] = [];
  for (const match of text.matchAll(IMPORT_PATH_PATTERN)) {
    // Go's FindAllStringSubmatch gives "" for a group that did not take part.
    const specifier = trimSpace(match[1] || match[2] || "");
    for (const [mod, substituted] of substitutions(specifier, importMap.imports)) {
      // Ignore URLs and directories; Deno import paths start with ./, ../ or /.
      if (ext(mod) === "") continue;
      const relative = mod.startsWith("./") || mod.startsWith("../");
      if (!relative && !mod.startsWith("/")) continue;
      const target = relative && !substituted ? join(dir(curr), mod) : clean(mod);
      out.push({ from: curr, specifier, target });
    }
  }
  return out;
}

/** Every (specifier, substituted) the Go loop can end with, whatever the map's order. */
function substitutions(mod: string, imports: Record<string, string>): [string, boolean][] {
  const entries = Object.entries(imports);
  const values = entries.map(([, value]) => value);
  // Only these keys can prefix the specifier or a value put in its place.
  const keys = entries.filter(([key]) =>
    mod.startsWith(key) || values.some((value) => value.startsWith(key) || key.startsWith(value))
  );
  if (keys.length > 6) throw new Error(`${keys.length} import-map keys can match "${mod}"`);
  const outcomes = new Map<string, [string, boolean]>();
  const visit = (current: string, substituted: boolean, remaining: [string, string][]) => {
    if (remaining.length === 0) outcomes.set(`${substituted} ${current}`, [current, substituted]);
    remaining.forEach(([key, value], i) => {
      const rest = remaining.filter((_, j) => j !== i);
      if (current.startsWith(key)) visit(value + current.slice(key.length), true, rest);
      else visit(current, substituted, rest);
    });
  };
  visit(mod, false, keys);
  return [...outcomes.values()];
}

/** `addFile`: the file's bytes, or Go's error and whether it is an `os.ErrNotExist`. */
async function addFile(
  files: ProjectFiles,
  path: string,
): Promise<{ bytes: Uint8Array } | { failure: string; notExist: boolean }> {
  try {
    return { bytes: await files.open(path) };
  } catch (error) {
    if (!(error instanceof OpenError)) throw error;
    const notExist = error.failure === "not-exist";
    if (error.failure === "directory") return { failure: error.message, notExist };
    return { failure: `failed to read file: ${error.message}`, notExist };
  }
}

/** `ImportMap.LoadAsDeno`: the map (a deno.json may point at another), each file uploaded. */
async function loadImportMap(
  files: ProjectFiles,
  imPath: string,
  uploaded: string[],
): Promise<CliImportMap> {
  const read = async (path: string) => {
    const raw = JSON.parse(new TextDecoder().decode(await files.open(path)));
    uploaded.push(path);
    return raw as { imports?: Record<string, string>; scopes?: object; importMap?: string };
  };
  let raw = await read(imPath);
  let from = imPath;
  const isDeno = /^deno\.jsonc?$/i.test(base(imPath));
  const size = (value?: object) => Object.keys(value ?? {}).length;
  const isReference = size(raw.imports) === 0 && size(raw.scopes) === 0 && !!raw.importMap;
  if (isDeno && isReference) {
    from = join(dir(imPath), raw.importMap!);
    raw = await read(from);
  }
  const imports: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw.imports ?? {})) {
    imports[key] = resolveHostPath(from, value);
  }
  return { imports };
}

/** `resolveHostPath`: a local value made relative to the project root (`./`-prefixed). */
export function resolveHostPath(jsonPath: string, hostPath: string): string {
  if (hostPath.startsWith("/") || hasUrlScheme(hostPath)) return hostPath;
  let resolved = join(dir(jsonPath), hostPath);
  if (hostPath.endsWith("/")) resolved += "/";
  return resolved.startsWith("/") ? resolved : `./${resolved}`;
}

/**
 * Whether Go's `url.Parse` succeeds with a scheme: a letter, then letters,
 * digits, `+`, `-`, `.`, then `:`; no control byte; no bad `%` escape.
 * (Go also refuses some malformed `scheme://host` authorities; not modelled.)
 */
function hasUrlScheme(value: string): boolean {
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f]/.test(value) || /%(?![0-9a-fA-F]{2})/.test(value)) return false;
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(value);
}
