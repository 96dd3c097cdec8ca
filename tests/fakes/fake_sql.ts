/**
 * A test `Sql` that answers `select 1` and can be told to fail, for handlers
 * that only need a database to be up or down (health checks). It runs no SQL.
 */
import type { Sql, SqlTx } from "../../shared/ports.ts";

/** The fake; set `failWith` to make every call reject. */
export class FakeSql implements Sql {
  failWith?: Error;
  readonly statements: string[] = [];

  query<T>(text: string): Promise<T[]> {
    this.statements.push(text);
    if (this.failWith) return Promise.reject(this.failWith);
    return Promise.resolve([{ "?column?": 1 }] as T[]);
  }

  exec(script: string): Promise<void> {
    return this.query(script).then(() => {});
  }

  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    return fn(this);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
