/**
 * `deno task mcp:stdio`: the same tools as the edge function, over MCP's stdio
 * transport for desktop clients. Configured by the same environment variables.
 * Logs go to stderr: stdout carries only the protocol. It exits when the
 * client closes stdin, or on SIGINT/SIGTERM, after flushing the audit log and
 * closing the database.
 */
import { createApp } from "../../shared/app/app.ts";
import { configSecrets, loadConfigOrExit } from "../../shared/config/config.ts";
import { createConsoleLogger, WRITE_TO_STDERR } from "../../shared/log/console_logger.ts";
import { createRedactor } from "../../shared/log/redact.ts";
import { serveStdio } from "../../shared/mcp/stdio.ts";
import tools from "../mcp-loop/tools.ts";

const config = loadConfigOrExit();
const logger = createConsoleLogger({
  level: config.logLevel,
  write: WRITE_TO_STDERR,
  redact: createRedactor(configSecrets(config)),
});
const app = createApp(config, { logger, tools });
const serving = serveStdio(app);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => void serving.stop());
}
await serving.closed;
await app.close();
Deno.exit(0);
