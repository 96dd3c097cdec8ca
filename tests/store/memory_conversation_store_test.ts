import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { conversationStoreSuite } from "./conversation_store_suite.ts";
import { hybridRetrievalSuite } from "./hybrid_retrieval_suite.ts";
import { memoryDataSuite } from "./memory_data_suite.ts";

const makeStore = (options = {}) => Promise.resolve(new MemoryConversationStore(options));
conversationStoreSuite("memory store", makeStore);
hybridRetrievalSuite("memory store", makeStore);
memoryDataSuite("memory store", makeStore);
