/**
 * The `mcp-loop` edge function: serve the app with the application's tools
 * (`./tools.ts`). All logic lives in `shared/`.
 */
import { serveFunction, type ToolsFile } from "../../shared/app/serve.ts";
import * as toolsFile from "./tools.ts";

const { default: tools, supabaseClient }: ToolsFile = toolsFile;
await serveFunction({ tools, supabaseClient });
