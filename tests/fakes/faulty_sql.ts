/**
 * Wraps a real `Sql` and fails chosen statements, to inject database faults in
 * the middle of a request.
 */
import type { Sql, SqlTx } from "../../shared/ports.ts";

/** The wrapper; `failWhen` picks the statements that fail. */
export class FaultySql implements Sql {
  failWhen: (text: string) => boolean = () => false;
  error = new Error("connection terminated unexpectedly");
  readonly #inner: Sql;

  constructor(inner: Sql) {
    this.#inner = inner;
  }

  query<T>(text: string, params?: unknown[]): Promise<T[]> {
    if (this.failWhen(text)) return Promise.reject(this.error);
    return this.#inner.query<T>(text, params);
  }

  exec(script: string): Promise<void> {
    if (this.failWhen(script)) return Promise.reject(this.error);
    return this.#inner.exec(script);
  }

  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    return this.#inner.transaction((tx) =>
      fn({
        query: <R>(text: string, params?: unknown[]) =>
          this.failWhen(text) ? Promise.reject(this.error) : tx.query<R>(text, params),
        exec: (script) => this.failWhen(script) ? Promise.reject(this.error) : tx.exec(script),
      })
    );
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
