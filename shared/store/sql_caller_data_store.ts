/**
 * Forgetting and export on Postgres, through `delete_chat_session`,
 * `forget_chat_caller` and `export_chat_caller`, as the caller (a signed-in
 * user under row level security).
 */
import type { Caller, Sql } from "../ports.ts";
import { asCaller } from "./as_caller.ts";
import type {
  CallerDataStore,
  CallerDeletion,
  CallerExport,
  SessionDeletion,
} from "./caller_data_port.ts";
import { parseDocument } from "./sql_conversation_store.ts";
import { toSafeText } from "./sql_values.ts";

/** A row of `delete_chat_session` / `forget_chat_caller`. */
export interface DeletionRow {
  messages: number;
  runs: number;
  summaries: number;
  audit_rows: number;
  loops?: number;
  memory?: number;
}

/** {@link CallerDataStore} over the `Sql` port. */
export class SqlCallerDataStore implements CallerDataStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async deleteSession(
    caller: Caller,
    sessionId: string,
    { keepRunning = false }: { keepRunning?: boolean } = {},
  ): Promise<SessionDeletion> {
    const [row] = await asCaller(this.#sql, caller, (db) =>
      db.query<DeletionRow>(
        "select * from public.delete_chat_session($1, $2, $3)",
        [toSafeText(sessionId), caller.owner, keepRunning],
      ), { transaction: true });
    return toSessionDeletion(row);
  }

  async deleteEverything(caller: Caller): Promise<CallerDeletion> {
    const [row] = await asCaller(
      this.#sql,
      caller,
      (db) => db.query<DeletionRow>("select * from public.forget_chat_caller($1)", [caller.owner]),
      {
        transaction: true,
      },
    );
    return toCallerDeletion(row);
  }

  async exportEverything(caller: Caller): Promise<CallerExport> {
    const [row] = await asCaller(this.#sql, caller, (db) =>
      db.query<{ document: unknown }>(
        "select public.export_chat_caller($1) as document",
        [caller.owner],
      ));
    return parseDocument(row?.document) as unknown as CallerExport;
  }
}

/** A deletion row as the port reports it. */
export function toSessionDeletion(row: DeletionRow | undefined): SessionDeletion {
  return {
    messages: Number(row?.messages ?? 0),
    runs: Number(row?.runs ?? 0),
    summaries: Number(row?.summaries ?? 0),
    auditRows: Number(row?.audit_rows ?? 0),
  };
}

/** A caller deletion row as the port reports it. */
export function toCallerDeletion(row: DeletionRow | undefined): CallerDeletion {
  return {
    ...toSessionDeletion(row),
    loops: Number(row?.loops ?? 0),
    memory: Number(row?.memory ?? 0),
  };
}
