/**
 * `static_files` globs as the Supabase CLI expands them before uploading:
 * `config.Glob.Files` (supabase/cli `apps/cli-go/pkg/config/config.go`, commit
 * 1d1e7191268e068fe9cb6aba524d1c619a9c727b) over afero's `IOFS.Glob` and
 * `Glob` (spf13/afero v1.15.0, `iofs.go`, `match.go`). afero's glob does not
 * check `fs.ValidPath`, so a pattern may name files `addFile` then refuses.
 */
import { hasMeta, join, matchPattern } from "./go_semantics.ts";
import type { ProjectFiles } from "./project_files.ts";

/** The matched files (sorted per pattern, deduplicated) and the errors the CLI warns about. */
export async function globFiles(
  files: ProjectFiles,
  patterns: readonly string[],
): Promise<{ files: string[]; errors: string[] }> {
  const found: string[] = [];
  const errors: string[] = [];
  for (const pattern of patterns) {
    let matches: string[] = [];
    try {
      matchPattern(pattern); // IOFS.Glob checks the syntax first
      matches = await glob(files, pattern);
    } catch (error) {
      errors.push(`failed to glob files: glob ${pattern}: ${(error as Error).message}`);
    }
    if (matches.length === 0) errors.push(`no files matched pattern: ${pattern}`);
    for (const match of matches.sort()) if (!found.includes(match)) found.push(match);
  }
  return { files: found, errors };
}

/** afero's `Glob`: one directory level at a time, `*` never crossing `/`. */
async function glob(files: ProjectFiles, pattern: string): Promise<string[]> {
  if (!hasMeta(pattern)) return await files.exists(pattern) ? [pattern] : [];
  const slash = pattern.lastIndexOf("/");
  const file = pattern.slice(slash + 1);
  let dir = pattern.slice(0, slash + 1);
  if (dir === "") dir = ".";
  else if (dir !== "/") dir = dir.slice(0, -1);
  const dirs = hasMeta(dir) ? await glob(files, dir) : [dir];
  const out: string[] = [];
  const test = matchPattern(file);
  for (const d of dirs) {
    for (const name of (await files.list(d)).sort()) if (test.test(name)) out.push(join(d, name));
  }
  return out;
}
