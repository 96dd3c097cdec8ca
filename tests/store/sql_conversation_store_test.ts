import { SqlConversationStore } from "../../shared/store/sql_conversation_store.ts";
import { sharedPglite } from "../support/pglite.ts";
import { conversationStoreSuite } from "./conversation_store_suite.ts";

conversationStoreSuite(
  "SQL store on PGlite",
  async (options) => new SqlConversationStore(await sharedPglite(), options),
);
