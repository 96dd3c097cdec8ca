/** An app for HTTP tests: real handlers and loop, fake store and database, no network. */
import { type AppOverrides, createApp } from "../../shared/app/app.ts";
import { loadConfig } from "../../shared/config/config.ts";
import type { ConfigOptions } from "../../shared/config/config_options.ts";
import { FakeSql } from "../fakes/fake_sql.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { MemoryApprovalStore } from "../fakes/memory_approval_store.ts";
import { MemoryMcpSessionStore } from "../fakes/memory_mcp_session_store.ts";
import { MemoryRunStore } from "../fakes/memory_run_store.ts";
import { RecordingLogger } from "../fakes/recording_logger.ts";

/** Builds the app with in-memory fakes; `env` adds configuration. */
export function testApp(
  overrides: AppOverrides = {},
  env: Record<string, string> = {},
  options: ConfigOptions = {},
) {
  const sql = new FakeSql();
  const store = new MemoryConversationStore();
  const runs = new MemoryRunStore();
  const approvals = new MemoryApprovalStore();
  const logger = new RecordingLogger();
  const app = createApp(
    loadConfig({ MCP_LOOP_DATA_DIR: "memory://", ...env }, { options }),
    { sql, store, runs, approvals, logger, mcpSessions: new MemoryMcpSessionStore(), ...overrides },
  );
  return { app, sql, store, runs, approvals, logger };
}

/** A POST of `body` (JSON-encoded unless it is a string) to `path`. */
export function post(body: unknown, { path = "/mcp-loop", headers = {} }: {
  path?: string;
  headers?: Record<string, string>;
} = {}): Request {
  return new Request(`http://localhost${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A valid loop request body. */
export function validBody(content = "hello", sessionId = `s-${crypto.randomUUID()}`) {
  return { mode: "general", sessionId, messages: [{ role: "user", content }] };
}
