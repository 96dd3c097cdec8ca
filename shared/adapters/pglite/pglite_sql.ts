/**
 * `Sql` on PGlite: real Postgres (18) and real pgvector in WASM, on disk or in
 * memory. For local runs and tests; PGlite is loaded by dynamic import only, so
 * it never enters the deployed import graph.
 */
import type { Sql, SqlTx } from "../../ports.ts";

interface PgliteLike {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(script: string): Promise<unknown>;
  transaction<T>(fn: (tx: PgliteTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  dumpDataDir(compression?: "none" | "gzip" | "auto"): Promise<File | Blob>;
}

interface PgliteTx {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(script: string): Promise<unknown>;
}

/** Where and how to open PGlite. */
export interface PgliteOptions {
  /** A directory, or `memory://` for a throwaway database (default `./.data/pglite`). */
  dataDir?: string;
  /** A tarball from {@link PgliteSql.dump} to start from (memory databases only). */
  loadDataDir?: Blob;
}

/**
 * Start parameters added to PGlite's own: 32 MB of shared buffers instead of
 * Postgres's 128 MB. Initialising the larger pool was about 130 ms of every
 * start (docs/benchmarks.md); reads beyond the smaller one come from the
 * operating system's file cache, and the store benchmark (10k messages with
 * 1536-dimension vectors and their HNSW index) runs as fast with it.
 */
export const PGLITE_START_PARAMS = ["-c", "shared_buffers=32MB"];

/** `Sql` over one PGlite instance (PGlite serialises statements itself). */
export class PgliteSql implements Sql {
  readonly #db: PgliteLike;

  private constructor(db: PgliteLike) {
    this.#db = db;
  }

  /** Opens (or creates) the database with the vector extension loaded. */
  static async open(
    { dataDir = "./.data/pglite", loadDataDir }: PgliteOptions = {},
  ): Promise<PgliteSql> {
    const [{ PGlite }, { vector }] = await Promise.all([
      import("@electric-sql/pglite"),
      import("@electric-sql/pglite-pgvector"),
    ]);
    if (!dataDir.startsWith("memory://")) await Deno.mkdir(dataDir, { recursive: true });
    const db = await PGlite.create({
      dataDir,
      loadDataDir,
      extensions: { vector },
      startParams: [...PGlite.defaultStartParams, ...PGLITE_START_PARAMS],
    });
    return new PgliteSql(db as unknown as PgliteLike);
  }

  async query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]> {
    return (await this.#db.query<T>(text, params)).rows;
  }

  async exec(script: string): Promise<void> {
    await this.#db.exec(script);
  }

  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    return this.#db.transaction((tx) =>
      fn({
        query: async <R>(text: string, params?: unknown[]) =>
          (await tx.query<R>(text, params)).rows,
        exec: async (script: string) => {
          await tx.exec(script);
        },
      })
    );
  }

  /** A tarball of the whole data dir, to start other instances from (tests, benches). */
  dump(): Promise<Blob> {
    return this.#db.dumpDataDir("none");
  }

  close(): Promise<void> {
    return this.#db.close();
  }
}
