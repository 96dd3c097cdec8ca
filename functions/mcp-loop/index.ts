/**
 * The `mcp-loop` edge function: serve the app with the application's tools
 * (`./tools.ts`). All logic lives in `shared/`.
 */
import { serveFunction } from "../../shared/app/serve.ts";
import tools from "./tools.ts";

await serveFunction({ tools });
