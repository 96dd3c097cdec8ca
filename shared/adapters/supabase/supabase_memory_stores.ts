/**
 * Working memory, forgetting and export (in pages) through Supabase's API:
 * the same SQL functions as the SQL stores, called over RPC as the caller
 * (see supabase_rpc.ts).
 */
import type { Caller } from "../../ports.ts";
import type {
  CallerDataStore,
  CallerDeletion,
  ExportHead,
  ExportPage,
  ExportSection,
  SessionDeletion,
} from "../../store/caller_data_port.ts";
import {
  type DeletionRow,
  type ExportRow,
  toCallerDeletion,
  toExportPage,
  toSessionDeletion,
} from "../../store/sql_caller_data_store.ts";
import { parseDocument } from "../../store/sql_conversation_store.ts";
import { toJsonb, toSafeText } from "../../store/sql_values.ts";
import type { StoredMemory, WorkingMemoryStore } from "../../store/working_memory_port.ts";
import { SupabaseRpc, type SupabaseRpcOptions } from "./supabase_rpc.ts";

/** {@link WorkingMemoryStore} and {@link CallerDataStore} over PostgREST RPC calls (supabase_rpc.ts). */
export class SupabaseMemoryStores implements WorkingMemoryStore, CallerDataStore {
  readonly #rpc: SupabaseRpc;

  constructor(options: SupabaseRpcOptions) {
    this.#rpc = new SupabaseRpc(options);
  }

  async getMemory(caller: Caller): Promise<StoredMemory> {
    const rows = await this.#rpc.call<{ document: unknown; version: number }[] | null>(
      caller,
      "get_working_memory",
      { p_owner: caller.owner },
      "read the working memory",
    );
    const [row] = rows ?? [];
    return { document: parseDocument(row?.document ?? {}), version: Number(row?.version ?? 0) };
  }

  async putMemory(
    caller: Caller,
    document: Record<string, unknown>,
    expectedVersion: number,
  ): Promise<boolean> {
    const version = await this.#rpc.call<number | null>(caller, "put_working_memory", {
      p_owner: caller.owner,
      p_document: JSON.parse(toJsonb(document)),
      p_expected_version: expectedVersion,
    }, "store the working memory");
    return version !== null && version !== undefined;
  }

  async deleteSession(
    caller: Caller,
    sessionId: string,
    { keepRunning = false }: { keepRunning?: boolean } = {},
  ): Promise<SessionDeletion> {
    const rows = await this.#rpc.call<DeletionRow[] | null>(caller, "delete_chat_session", {
      p_session_id: toSafeText(sessionId),
      p_owner: caller.owner,
      p_keep_running: keepRunning,
    }, "delete the session");
    return toSessionDeletion(rows?.[0]);
  }

  async deleteEverything(caller: Caller): Promise<CallerDeletion> {
    const rows = await this.#rpc.call<DeletionRow[] | null>(
      caller,
      "forget_chat_caller",
      { p_owner: caller.owner },
      "delete your data",
    );
    return toCallerDeletion(rows?.[0]);
  }

  async exportHead(caller: Caller): Promise<ExportHead> {
    const rows = await this.#rpc.call<ExportRow[] | null>(
      caller,
      "export_chat_page",
      { p_owner: caller.owner, p_section: "head" },
      "export your data",
    );
    return parseDocument(rows?.[0]?.item) as unknown as ExportHead;
  }

  async exportPage(
    caller: Caller,
    section: ExportSection,
    { after, limit, maxBytes }: { after?: string; limit: number; maxBytes: number },
  ): Promise<ExportPage> {
    const rows = await this.#rpc.call<ExportRow[] | null>(caller, "export_chat_page", {
      p_owner: caller.owner,
      p_section: section,
      p_after: after ?? null,
      p_limit: limit,
      p_max_bytes: maxBytes,
    }, "export your data");
    return toExportPage(rows ?? []);
  }
}
