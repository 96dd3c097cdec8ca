/**
 * The project's files as the Supabase CLI sees them when it deploys:
 * `afero.NewIOFS(afero.NewOsFs())` with the working directory at the project
 * root (`internal/functions/deploy/deploy.go` `Run`; `utils.ChangeWorkDir`).
 * afero's `IOFS.Open` (spf13/afero v1.15.0, `iofs.go`) refuses a name that
 * `fs.ValidPath` refuses with `fs.ErrInvalid`, "invalid argument": any
 * absolute path, any path with a `..` element. Only "no such file or
 * directory" is an `os.ErrNotExist`; every other failure is some other error.
 */
import { validPath } from "./go_semantics.ts";

/** Why a file could not be opened, in the terms the CLI's error checks use. */
export type OpenFailure = "invalid" | "not-exist" | "directory" | "other";

/** A failed open, with Go's message (`open NAME: invalid argument`). */
export class OpenError extends Error {
  constructor(readonly path: string, readonly failure: OpenFailure, reason: string) {
    super(
      failure === "directory" ? `file path is a directory: ${path}` : `open ${path}: ${reason}`,
    );
  }
}

/** What the CLI does with the project's files while it builds the upload. */
export interface ProjectFiles {
  /** `fsys.Open` then `Stat` as `writeForm`'s `addFile` does: the bytes, or an `OpenError`. */
  open(name: string): Promise<Uint8Array>;
  /** The entry names of directory `name` (afero's glob reads them), or none if unreadable. */
  list(name: string): Promise<string[]>;
  /** Whether `name` exists (afero's glob `lstat`s names without glob characters). */
  exists(name: string): Promise<boolean>;
}

/** The files under `root` on disk, as the CLI opens them from the project root. */
export function diskFiles(root: string): ProjectFiles {
  const full = (name: string) => `${root.replace(/\/$/, "")}/${name}`;
  return {
    async open(name) {
      if (!validPath(name)) throw new OpenError(name, "invalid", "invalid argument");
      try {
        if ((await Deno.stat(full(name))).isDirectory) throw new OpenError(name, "directory", "");
        return await Deno.readFile(full(name));
      } catch (error) {
        if (error instanceof OpenError) throw error;
        if (error instanceof Deno.errors.NotFound) {
          throw new OpenError(name, "not-exist", "no such file or directory");
        }
        throw new OpenError(name, "other", (error as Error).message);
      }
    },
    async list(name) {
      try {
        return (await Array.fromAsync(Deno.readDir(full(name)))).map((entry) => entry.name);
      } catch {
        return [];
      }
    },
    async exists(name) {
      if (name === "") return false; // os.Lstat("") fails
      try {
        await Deno.lstat(full(name));
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** `base` with some files' text replaced or added (a fixture over the real tree). */
export function withFiles(base: ProjectFiles, files: Record<string, string>): ProjectFiles {
  const names = Object.keys(files);
  return {
    async open(name) {
      if (!validPath(name)) throw new OpenError(name, "invalid", "invalid argument");
      const text = files[name];
      return text === undefined ? await base.open(name) : new TextEncoder().encode(text);
    },
    async list(name) {
      const prefix = name === "." ? "" : `${name}/`;
      const own = names.filter((file) => file.startsWith(prefix))
        .map((file) => file.slice(prefix.length).split("/")[0]);
      return [...new Set([...await base.list(name), ...own])];
    },
    async exists(name) {
      return names.some((file) => file === name || file.startsWith(`${name}/`)) ||
        await base.exists(name);
    },
  };
}

/** Only `files`: a project tree written in a test. */
export function memoryFiles(files: Record<string, string>): ProjectFiles {
  const none: ProjectFiles = {
    open: (name) => Promise.reject(new OpenError(name, "not-exist", "no such file or directory")),
    list: () => Promise.resolve([]),
    exists: () => Promise.resolve(false),
  };
  return withFiles(none, files);
}
