/**
 * Working memory on Postgres, through `get_working_memory` and
 * `put_working_memory` (conditional on the version read), as the caller.
 */
import type { Caller, Sql } from "../ports.ts";
import { asCaller } from "./as_caller.ts";
import { parseDocument } from "./sql_conversation_store.ts";
import { toJsonb } from "./sql_values.ts";
import type { StoredMemory, WorkingMemoryStore } from "./working_memory_port.ts";

/** {@link WorkingMemoryStore} over the `Sql` port. */
export class SqlWorkingMemoryStore implements WorkingMemoryStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async getMemory(caller: Caller): Promise<StoredMemory> {
    const [row] = await asCaller(
      this.#sql,
      caller,
      (db) =>
        db.query<{ document: unknown; version: number }>(
          "select document, version from public.get_working_memory($1)",
          [caller.owner],
        ),
    );
    return { document: parseDocument(row?.document ?? {}), version: Number(row?.version ?? 0) };
  }

  async putMemory(
    caller: Caller,
    document: Record<string, unknown>,
    expectedVersion: number,
  ): Promise<boolean> {
    const [row] = await asCaller(this.#sql, caller, (db) =>
      db.query<{ version: number | null }>(
        "select public.put_working_memory($1, $2::jsonb, $3) as version",
        [caller.owner, toJsonb(document), expectedVersion],
      ));
    return row?.version !== null && row?.version !== undefined;
  }
}
