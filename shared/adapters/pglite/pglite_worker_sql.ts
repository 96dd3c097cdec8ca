/**
 * `Sql` on PGlite running in a worker thread (`pglite_worker.ts`): the same
 * database as {@link PgliteSql}, but its WASM work happens off the thread that
 * serves HTTP, so a statement never stalls other requests. The app uses this
 * one; tests that share one database in-process use {@link PgliteSql}.
 *
 * If the worker dies (PGlite aborts, out of memory), the statements in flight
 * fail and the next one starts a new worker on the same data directory.
 */
import type { Sql, SqlTx } from "../../ports.ts";
import type { WorkerRequest, WorkerResponse } from "./pglite_worker.ts";
import type { PgliteOptions } from "./pglite_sql.ts";

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };
type WorkerOptions = { dataDir: string; loadDataDir?: Blob; workerUrl: URL };

/** The worker module (tests may point to a wrapper of it). */
const WORKER_URL = new URL("./pglite_worker.ts", import.meta.url);
type RequestBody = WorkerRequest extends infer R ? R extends unknown ? Omit<R, "id"> : never
  : never;

/** `Sql` over a PGlite worker. */
export class PgliteWorkerSql implements Sql {
  readonly #options: WorkerOptions;
  readonly #pending = new Map<number, Pending>();
  #worker: Promise<Worker> | undefined;
  #nextId = 1;
  #nextTx = 1;
  #closed = false;

  private constructor(options: WorkerOptions) {
    this.#options = options;
  }

  /** Starts the worker and opens (or creates) the database with the vector extension. */
  static async open(
    { dataDir = "./.data/pglite", loadDataDir, workerUrl = WORKER_URL }:
      & PgliteOptions
      & { workerUrl?: URL } = {},
  ): Promise<PgliteWorkerSql> {
    if (!dataDir.startsWith("memory://")) await Deno.mkdir(dataDir, { recursive: true });
    const sql = new PgliteWorkerSql({ dataDir, loadDataDir, workerUrl });
    await sql.#ensureWorker();
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
    try {
      await this.#call({ op: "close" });
    } finally {
      this.#closed = true;
      (await this.#worker?.catch(() => undefined))?.terminate();
      this.#worker = undefined;
    }
  }

  /** The running worker, starting one (and opening the database) if there is none. */
  #ensureWorker(): Promise<Worker> {
    this.#worker ??= this.#startWorker();
    return this.#worker;
  }

  async #startWorker(): Promise<Worker> {
    const worker = new Worker(this.#options.workerUrl, { type: "module" });
    worker.onmessage = (event: MessageEvent<WorkerResponse>) => this.#settle(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#died(worker, new Error(`the PGlite worker stopped: ${event.message}`));
    };
    try {
      await this.#send(worker, {
        op: "open",
        dataDir: this.#options.dataDir,
        loadDataDir: this.#options.loadDataDir,
      });
      return worker;
    } catch (error) {
      this.#died(worker, error as Error);
      throw error;
    }
  }

  /** Fails what was in flight on `worker`; the next call starts a new one. */
  #died(worker: Worker, error: Error): void {
    worker.terminate();
    this.#worker = undefined;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  #settle(response: WorkerResponse): void {
    const pending = this.#pending.get(response.id);
    if (!pending) return;
    this.#pending.delete(response.id);
    if (response.ok) pending.resolve(response.value);
    else {
      pending.reject(
        Object.assign(new Error(response.error.message), { code: response.error.code }),
      );
    }
  }

  async #call(request: RequestBody): Promise<unknown> {
    if (this.#closed) throw new Error("the PGlite database is closed");
    return await this.#send(await this.#ensureWorker(), request);
  }

  #send(worker: Worker, request: RequestBody): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });
  }
}
