import { SqlRefinementStore } from "../../shared/store/sql_refinement_store.ts";
import { MemoryRefinementStore } from "../fakes/memory_refinement_store.ts";
import { sharedPglite } from "../support/pglite.ts";
import { refinementStoreSuite } from "./refinement_store_suite.ts";

refinementStoreSuite(
  "memory refinement store",
  (options) => Promise.resolve(new MemoryRefinementStore(options)),
);
refinementStoreSuite(
  "SQL refinement store on PGlite",
  async (options) => new SqlRefinementStore(await sharedPglite(), options),
);
