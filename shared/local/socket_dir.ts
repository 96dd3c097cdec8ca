/**
 * The folder that holds the local server's Unix socket (the app listens there,
 * behind the connection guard), and the sweep of the folders that servers which
 * did not stop cleanly left behind: a server that is killed (SIGKILL, out of
 * memory, a crash) never runs its cleanup, so its folder stays in the system's
 * temporary folder until the next server removes it.
 */

/** The prefix of a socket folder's name; `Deno.makeTempDir` adds a random tail. */
const PREFIX = "mcp-loop-";
/** The socket's file name inside its folder. */
export const SOCKET_NAME = "http.sock";
/** A socket folder's name: the prefix, then `Deno.makeTempDir`'s random tail (hexadecimal). */
const SOCKET_DIR_NAME = /^mcp-loop-[0-9a-f]{8,}$/;
/** How long an empty socket folder is left for the server that made it. */
const EMPTY_FOR_MS = 60_000;

/** Makes a new socket folder (in `dir`, the system's temporary folder by default). */
export function makeSocketDir(dir?: string): Promise<string> {
  return Deno.makeTempDir({ prefix: PREFIX, ...(dir ? { dir } : {}) });
}

/** The folder that holds `path`. */
export function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}

/**
 * Removes the socket folders in `parent` whose socket no server listens on any
 * more (connecting is refused) or that stayed empty, and returns how many. A
 * folder just made (a server between making it and listening), one that holds
 * anything but the socket, and a socket that answers are left alone.
 */
export async function sweepStaleSocketDirs(parent: string): Promise<number> {
  let removed = 0;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(parent));
  } catch {
    return 0; // not readable: nothing of ours to sweep
  }
  for (const entry of entries) {
    if (!entry.isDirectory || !SOCKET_DIR_NAME.test(entry.name)) continue;
    const dir = `${parent}/${entry.name}`;
    if (await isStale(dir)) {
      await Deno.remove(dir, { recursive: true }).then(() => removed++, () => {});
    }
  }
  return removed;
}

/**
 * Whether `dir` holds only a socket that refuses connections, or is empty and
 * older than a minute (a server listens within microseconds of making it).
 */
async function isStale(dir: string): Promise<boolean> {
  try {
    const names: string[] = [];
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    if (names.length === 0) return await olderThan(dir, EMPTY_FOR_MS);
    if (names.length !== 1 || names[0] !== SOCKET_NAME) return false;
    if (!(await Deno.lstat(`${dir}/${SOCKET_NAME}`)).isSocket) return false;
    const conn = await Deno.connect({ transport: "unix", path: `${dir}/${SOCKET_NAME}` });
    conn.close();
    return false;
  } catch (error) {
    return error instanceof Deno.errors.ConnectionRefused;
  }
}

/** Whether `path` was last changed more than `ms` ago. */
async function olderThan(path: string, ms: number): Promise<boolean> {
  const { mtime } = await Deno.stat(path);
  return mtime !== null && Date.now() - mtime.getTime() > ms;
}
