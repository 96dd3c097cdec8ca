/**
 * `deno task mcp:stdio`: the same tools as the edge function, over MCP's stdio
 * transport for desktop clients. Configured by the same environment variables.
 */
import { createApp } from "../../shared/app.ts";
import { loadConfig } from "../../shared/config.ts";
import { serveStdio } from "../../shared/mcp/stdio.ts";

let config;
try {
  config = loadConfig(Deno.env.toObject());
} catch (error) {
  console.error((error as Error).message);
  Deno.exit(1);
}
const app = createApp(config);
await serveStdio(app);
await app.close();
Deno.exit(0);
