/**
 * One process per PGlite data folder. PGlite is single-process: two processes
 * writing one folder can lose or corrupt data. The process that opens a folder
 * holds an exclusive lock on `mcp-loop.lock` in it for as long as it runs (an
 * OS file lock, so it goes away with the process, however that ends), and
 * writes there what it is — its pid and, for the HTTP server, the MCP URL it
 * serves. A lock file whose lock nobody holds is stale and is taken over.
 */
import { AppError } from "../errors.ts";

/** What the lock file says. */
export interface LockHolder {
  pid: number;
  /** "http" (deno task start) or "stdio" (deno task mcp:stdio). */
  role: "http" | "stdio";
  /** The MCP endpoint the holder serves, when it is the HTTP server. */
  mcpUrl?: string;
  startedAt: string;
}

/** A held lock. */
export interface DataDirLock {
  readonly path: string;
  /** Records the URL the holder serves (once it is listening). */
  setMcpUrl(url: string): void;
  /** Lets go of the lock (the process's exit does too). */
  release(): void;
}

/** The lock file of `dataDir`. */
export function lockPath(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, "")}/mcp-loop.lock`;
}

/** The process holding `dataDir`, if one does. */
export function lockHolder(dataDir: string): LockHolder | undefined {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(lockPath(dataDir), { read: true, write: true });
  } catch {
    return undefined; // no lock file: nobody has opened this folder
  }
  try {
    if (file.tryLockSync(true)) {
      file.unlockSync();
      return undefined;
    }
    return readHolder(lockPath(dataDir));
  } finally {
    file.close();
  }
}

/**
 * Takes the lock of `dataDir` for this process, taking over a stale one.
 * Throws DB_UNAVAILABLE naming the folder, the holder and what to do when
 * another process holds it.
 */
export function acquireDataDirLock(
  dataDir: string,
  { role, mcpUrl }: { role: LockHolder["role"]; mcpUrl?: string },
): DataDirLock {
  Deno.mkdirSync(dataDir, { recursive: true });
  const path = lockPath(dataDir);
  // The file is never deleted: a process could be locking the old one while another made a new one.
  const file = Deno.openSync(path, { read: true, write: true, create: true });
  if (!file.tryLockSync(true)) {
    const holder = readHolder(path);
    file.close();
    throw inUse(dataDir, holder);
  }
  const mine: LockHolder = { pid: Deno.pid, role, mcpUrl, startedAt: new Date().toISOString() };
  const write = () => {
    const bytes = new TextEncoder().encode(JSON.stringify(mine));
    file.truncateSync(0);
    file.seekSync(0, Deno.SeekMode.Start);
    file.writeSync(bytes);
  };
  write();
  let held = true;
  return {
    path,
    setMcpUrl(url) {
      mine.mcpUrl = url;
      if (held) write();
    },
    release() {
      if (!held) return;
      held = false;
      file.unlockSync();
      file.close();
    },
  };
}

function inUse(dataDir: string, holder: LockHolder | undefined): AppError {
  const who = holder ? `process ${holder.pid}` : "another process";
  const what = holder?.role === "http"
    ? `, the HTTP server (deno task start)${
      holder.mcpUrl ? `, serving MCP at ${holder.mcpUrl}` : ""
    }`
    : holder?.role === "stdio"
    ? ", an MCP stdio server (deno task mcp:stdio)"
    : "";
  return new AppError(
    "DB_UNAVAILABLE",
    `MCP_LOOP_DATA_DIR ${dataDir} is in use by ${who}${what}. PGlite allows one process per folder: ${
      holder?.mcpUrl ? `connect to ${holder.mcpUrl}, ` : ""
    }stop that process, or set MCP_LOOP_DATA_DIR to another folder.`,
    { details: { dataDir, holder } },
  );
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(Deno.readTextFileSync(path)) as LockHolder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined;
  }
}
