/**
 * `deno task mcp:stdio`: the same tools as the edge function, over MCP's stdio
 * transport for desktop clients, configured by the same environment variables.
 * When `deno task start` already holds the data folder, it bridges to that
 * server instead (one memory for both). Logs go to stderr: stdout carries only
 * the protocol. It exits when the client closes stdin, or on SIGINT/SIGTERM,
 * after flushing the audit log and closing the database.
 */
import { serveStdioFunction } from "../../shared/local/serve_stdio.ts";
import type { ToolsFile } from "../../shared/app/serve.ts";
import * as toolsFile from "../mcp-loop/tools.ts";

const { default: tools, supabaseClient }: ToolsFile = toolsFile;
await serveStdioFunction({ tools, supabaseClient });
