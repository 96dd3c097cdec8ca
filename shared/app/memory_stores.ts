/**
 * The stores of working memory and of a caller's data (forgetting, export),
 * beside the conversation store the configuration chose: SQL on the database,
 * or Supabase's API as the caller (loaded on first use).
 */
import type { Config } from "../config/config.ts";
import { type MemoryShape, memoryShape } from "../memory/working_memory.ts";
import type { ConversationStore, Sql } from "../ports.ts";
import type { CallerDataStore } from "../store/caller_data_port.ts";
import { SqlCallerDataStore } from "../store/sql_caller_data_store.ts";
import { SqlWorkingMemoryStore } from "../store/sql_working_memory_store.ts";
import type { WorkingMemoryStore } from "../store/working_memory_port.ts";
import { onFirstUse } from "./on_first_use.ts";

/** Working memory, a caller's data, and the working memory's shape. */
export interface MemoryStores {
  memory: WorkingMemoryStore;
  data: CallerDataStore;
  shape: MemoryShape;
}

/**
 * The stores the configuration asks for. A conversation store given in place
 * of the configured one (tests, embedding) that keeps memory and data itself
 * is used for them too, so what a turn loads and what the tools change agree.
 */
export function createMemoryStores(
  config: Config,
  sql: Sql,
  { store, memory, data }: {
    store?: ConversationStore;
    memory?: WorkingMemoryStore;
    data?: CallerDataStore;
  } = {},
): MemoryStores {
  const shape = memoryShape(config.workingMemorySchema);
  const given = store as Partial<WorkingMemoryStore & CallerDataStore> | undefined;
  const ownMemory = given?.getMemory && given.putMemory ? given as WorkingMemoryStore : undefined;
  const ownData = given?.deleteSession && given.deleteEverything && given.exportPage
    ? given as CallerDataStore
    : undefined;
  const fallback = defaultStores(config, sql);
  return {
    memory: memory ?? ownMemory ?? fallback.memory,
    data: data ?? ownData ?? fallback.data,
    shape,
  };
}

function defaultStores(config: Config, sql: Sql): Omit<MemoryStores, "shape"> {
  const storeConfig = config.store;
  if (storeConfig.kind === "sql") {
    return { memory: new SqlWorkingMemoryStore(sql), data: new SqlCallerDataStore(sql) };
  }
  const stores = onFirstUse(
    () =>
      import("../adapters/supabase/supabase_memory_stores.ts").then(
        ({ SupabaseMemoryStores }) => new SupabaseMemoryStores(storeConfig),
      ),
    ["getMemory", "putMemory", "deleteSession", "deleteEverything", "exportHead", "exportPage"],
  );
  return { memory: stores, data: stores };
}
