/**
 * `Sql` on PGlite running in a worker thread (`pglite_worker.ts`): the same
 * database as {@link PgliteSql}, but its WASM work happens off the thread that
 * serves HTTP, so a statement never stalls other requests. The app uses this
 * one; tests that share one database in-process use {@link PgliteSql}.
 */
import type { Sql, SqlTx } from "../../ports.ts";
import type { WorkerRequest, WorkerResponse } from "./pglite_worker.ts";
import type { PgliteOptions } from "./pglite_sql.ts";

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };
type RequestBody = WorkerRequest extends infer R ? R extends unknown ? Omit<R, "id"> : never
  : never;

/** `Sql` over a PGlite worker. */
export class PgliteWorkerSql implements Sql {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #nextTx = 1;
  #closed = false;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.onmessage = (event: MessageEvent<WorkerResponse>) => {
      const response = event.data;
      const pending = this.#pending.get(response.id);
      if (!pending) return;
      this.#pending.delete(response.id);
      if (response.ok) pending.resolve(response.value);
      else {pending.reject(
          Object.assign(new Error(response.error.message), { code: response.error.code }),
        );}
    };
    worker.onerror = (event) => {
      event.preventDefault();
      const error = new Error(`the PGlite worker failed: ${event.message}`);
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
  }

  /** Starts the worker and opens (or creates) the database with the vector extension. */
  static async open(
    { dataDir = "./.data/pglite", loadDataDir }: PgliteOptions = {},
  ): Promise<PgliteWorkerSql> {
    if (!dataDir.startsWith("memory://")) await Deno.mkdir(dataDir, { recursive: true });
    const worker = new Worker(new URL("./pglite_worker.ts", import.meta.url), { type: "module" });
    const sql = new PgliteWorkerSql(worker);
    try {
      await sql.#call({ op: "open", dataDir, loadDataDir });
    } catch (error) {
      worker.terminate();
      throw error;
    }
    return sql;
  }

  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]> {
    return this.#call({ op: "query", text, params }) as Promise<T[]>;
  }

  async exec(script: string): Promise<void> {
    await this.#call({ op: "exec", script });
  }

  async transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    const txId = this.#nextTx++;
    await this.#call({ op: "begin", txId });
    let result: T;
    try {
      result = await fn({
        query: <R>(text: string, params?: unknown[]) =>
          this.#call({ op: "query", text, params, txId }) as Promise<R[]>,
        exec: async (script) => {
          await this.#call({ op: "exec", script, txId });
        },
      });
    } catch (error) {
      await this.#call({ op: "end", txId, commit: false }).catch(() => {});
      throw error;
    }
    await this.#call({ op: "end", txId, commit: true });
    return result;
  }

  /** A tarball of the whole data dir. */
  dump(): Promise<Blob> {
    return this.#call({ op: "dump" }) as Promise<Blob>;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#call({ op: "close" });
    } finally {
      this.#worker.terminate();
    }
  }

  #call(request: RequestBody): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id });
    });
  }
}
