/**
 * The store suites on a real Postgres with pgvector, when one is given
 * (MCP_LOOP_TEST_POSTGRES_URL); skipped with a notice otherwise.
 */
import { migratedPostgres } from "../support/postgres.ts";
import { sqlStores } from "../support/sql_stores.ts";
import { conversationStoreSuite } from "./conversation_store_suite.ts";
import { hybridRetrievalSuite } from "./hybrid_retrieval_suite.ts";
import { memoryDataSuite } from "./memory_data_suite.ts";
import { SqlRunStore } from "../../shared/store/sql_run_store.ts";
import { runStoreSuite } from "../runs/run_store_suite.ts";

const postgres = await migratedPostgres();
const options = { ignore: postgres.sql === undefined, sanitize: false };
const makeStore = (memory = {}) => Promise.resolve(sqlStores(postgres.sql!, memory));
conversationStoreSuite("SQL store on Postgres", makeStore, options);
hybridRetrievalSuite("SQL store on Postgres", makeStore, options);
memoryDataSuite("SQL store on Postgres", makeStore, options);
runStoreSuite(
  "SQL run store on Postgres",
  () => Promise.resolve(new SqlRunStore(postgres.sql!)),
  options,
);

Deno.test({
  name: "SQL store on Postgres: (closing the connection)",
  ignore: postgres.sql === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => postgres.sql!.close(),
});
