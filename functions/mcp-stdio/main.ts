/**
 * `deno task mcp:stdio`: the same tools as the edge function, over MCP's stdio
 * transport for desktop clients. Configured by the same environment variables.
 */
import { createApp } from "../../shared/app.ts";
import { loadConfigOrExit } from "../../shared/config.ts";
import { serveStdio } from "../../shared/mcp/stdio.ts";

const app = createApp(loadConfigOrExit());
await serveStdio(app);
await app.close();
Deno.exit(0);
