import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { conversationStoreSuite } from "./conversation_store_suite.ts";

conversationStoreSuite(
  "memory store",
  (options) => Promise.resolve(new MemoryConversationStore(options)),
);
