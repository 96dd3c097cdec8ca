/**
 * The SQL stores of conversations, working memory and a caller's data over one
 * database, as one object (what the store suites take).
 */
import type { Sql } from "../../shared/ports.ts";
import { SqlCallerDataStore } from "../../shared/store/sql_caller_data_store.ts";
import {
  type MemoryOptions,
  SqlConversationStore,
} from "../../shared/store/sql_conversation_store.ts";
import { SqlWorkingMemoryStore } from "../../shared/store/sql_working_memory_store.ts";
import type { FullStore } from "../store/conversation_store_suite.ts";

/** The three SQL stores over `sql`. */
export function sqlStores(sql: Sql, options: Partial<MemoryOptions> = {}): FullStore {
  const conversations = new SqlConversationStore(sql, options);
  const memory = new SqlWorkingMemoryStore(sql);
  const data = new SqlCallerDataStore(sql);
  return {
    loadContext: (input) => conversations.loadContext(input),
    saveTurn: (input) => conversations.saveTurn(input),
    listMessages: (caller, sessionId, limit) =>
      conversations.listMessages(caller, sessionId, limit),
    listSessions: (caller, prefix, limit) => conversations.listSessions(caller, prefix, limit),
    messagesByIds: (caller, ids) => conversations.messagesByIds(caller, ids),
    getMemory: (caller) => memory.getMemory(caller),
    putMemory: (caller, document, version) => memory.putMemory(caller, document, version),
    deleteSession: (caller, sessionId, opts) => data.deleteSession(caller, sessionId, opts),
    deleteEverything: (caller) => data.deleteEverything(caller),
    exportHead: (caller) => data.exportHead(caller),
    exportPage: (caller, section, page) => data.exportPage(caller, section, page),
  };
}
