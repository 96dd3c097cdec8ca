import { sharedPglite } from "../support/pglite.ts";
import { sqlStores } from "../support/sql_stores.ts";
import { conversationStoreSuite } from "./conversation_store_suite.ts";
import { hybridRetrievalSuite } from "./hybrid_retrieval_suite.ts";
import { memoryDataSuite } from "./memory_data_suite.ts";

const makeStore = async (options = {}) => sqlStores(await sharedPglite(), options);
conversationStoreSuite("SQL store on PGlite", makeStore);
hybridRetrievalSuite("SQL store on PGlite", makeStore);
memoryDataSuite("SQL store on PGlite", makeStore);
