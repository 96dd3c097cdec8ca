/**
 * One migrated in-memory PGlite per test process, started from a dump of a
 * migrated database. A fresh PGlite takes seconds (initdb, then the
 * migrations); loading the dump takes about a second. The dump is made once
 * and kept in the temporary folder under a name derived from everything that
 * shapes it (the migrations, PGlite's version, the adapter), so test processes,
 * runs and copies of the suite share it; a change to any of them makes a new one.
 * Tests share the database and keep apart by using their own session and user ids.
 */
import { PgliteSql } from "../../shared/adapters/pglite/pglite_sql.ts";
import { applyMigrations, MIGRATIONS_DIR } from "../../shared/store/migrations.ts";

let shared: Promise<PgliteSql> | undefined;

/** The process's shared, migrated PGlite. */
export function sharedPglite(): Promise<PgliteSql> {
  shared ??= openMigrated();
  return shared;
}

/** A new in-memory PGlite with the migrations applied (from the dump when there is one). */
export async function openMigrated(): Promise<PgliteSql> {
  const file = await dumpPath();
  const dump = await readDump(file);
  if (dump) {
    try {
      return await PgliteSql.open({ dataDir: "memory://", loadDataDir: dump });
    } catch {
      await Deno.remove(file).catch(() => {}); // unreadable: made anew below
    }
  }
  const sql = await PgliteSql.open({ dataDir: "memory://" });
  await applyMigrations(sql);
  await writeDump(file, await sql.dump());
  return sql;
}

/** The dump of a migrated database, made if there is none yet. */
async function migratedDump(): Promise<Blob> {
  const file = await dumpPath();
  const dump = await readDump(file);
  if (dump) return dump;
  const sql = await openMigrated();
  try {
    return (await readDump(file)) ?? await sql.dump();
  } finally {
    await sql.close();
  }
}

let template: Promise<string> | undefined;

/**
 * A PGlite data folder with the migrations applied, kept beside the dump and made from it once;
 * copy it, never open it (`initializedDataDir` in process.ts does).
 */
export function migratedDataDir(): Promise<string> {
  template ??= (async () => {
    const folder = (await dumpPath()).replace(/\.tar$/, ".data");
    try {
      await Deno.stat(`${folder}/PG_VERSION`);
      return folder;
    } catch {
      // not made yet
    }
    const building = `${folder}.${crypto.randomUUID()}.partial`;
    const sql = await PgliteSql.open({ dataDir: building, loadDataDir: await migratedDump() });
    await sql.close();
    try {
      await Deno.rename(building, folder);
    } catch {
      // another process made it first
      await Deno.remove(building, { recursive: true }).catch(() => {});
    }
    return folder;
  })();
  return template;
}

async function readDump(file: string): Promise<Blob | undefined> {
  try {
    return new Blob([await Deno.readFile(file)]);
  } catch {
    return undefined;
  }
}

/** Writes beside the final name, then renames: a reader never sees half a dump. */
async function writeDump(file: string, dump: Blob): Promise<void> {
  const partial = `${file}.${crypto.randomUUID()}.partial`;
  try {
    await Deno.writeFile(partial, new Uint8Array(await dump.arrayBuffer()));
    await Deno.rename(partial, file);
  } catch {
    await Deno.remove(partial).catch(() => {}); // the next process tries again
  }
}

let path: Promise<string> | undefined;

/** The dump's file: its name is a digest of what the migrated database is made from. */
function dumpPath(): Promise<string> {
  path ??= (async () => {
    const root = new URL("../../", import.meta.url);
    const parts: string[] = [];
    const names: string[] = [];
    for await (const entry of Deno.readDir(MIGRATIONS_DIR)) names.push(entry.name);
    for (const name of names.sort()) {
      parts.push(name, await Deno.readTextFile(new URL(name, MIGRATIONS_DIR)));
    }
    for (
      const file of [
        "import_map.json",
        "shared/adapters/pglite/pglite_sql.ts",
        "shared/store/migrations.ts",
      ]
    ) parts.push(file, await Deno.readTextFile(new URL(file, root)));
    const digest = await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(parts.join("\0")),
    );
    const hex = Array.from(new Uint8Array(digest).slice(0, 12))
      .map((byte) => byte.toString(16).padStart(2, "0")).join("");
    const dir = `${Deno.env.get("TMPDIR") || "/tmp"}/mcp-loop-tests`;
    await Deno.mkdir(dir, { recursive: true });
    return `${dir}/pglite-${hex}.tar`;
  })();
  return path;
}
