/**
 * Forgetting and export on Postgres, through `delete_chat_session`,
 * `forget_chat_caller` and `export_chat_page` (an export in pages), as the
 * caller (a signed-in user under row level security).
 */
import type { Caller, Sql } from "../ports.ts";
import { asCaller } from "./as_caller.ts";
import type {
  CallerDataStore,
  CallerDeletion,
  ExportHead,
  ExportPage,
  ExportSection,
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

  async exportHead(caller: Caller): Promise<ExportHead> {
    const [row] = await asCaller(
      this.#sql,
      caller,
      (db) =>
        db.query<ExportRow>("select cursor, item from public.export_chat_page($1, 'head')", [
          caller.owner,
        ]),
    );
    return parseDocument(row?.item) as unknown as ExportHead;
  }

  async exportPage(
    caller: Caller,
    section: ExportSection,
    { after, limit, maxBytes }: { after?: string; limit: number; maxBytes: number },
  ): Promise<ExportPage> {
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query<ExportRow>(
        "select cursor, item from public.export_chat_page($1, $2, $3, $4, $5)",
        [caller.owner, section, after ?? null, limit, maxBytes],
      ));
    return toExportPage(rows);
  }
}

/** A row of `export_chat_page`. */
export interface ExportRow {
  cursor: string | null;
  item: unknown;
}

/** Rows of `export_chat_page` as a page: the items, and the last one's cursor. */
export function toExportPage(rows: readonly ExportRow[]): ExportPage {
  const last = rows.at(-1)?.cursor;
  return {
    rows: rows.map((row) => parseDocument(row.item)),
    ...(last === undefined || last === null ? {} : { next: last }),
  };
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
