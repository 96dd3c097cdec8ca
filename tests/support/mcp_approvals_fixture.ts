/**
 * MCP approval test setups: the app with tools that count their calls (one
 * destructive, one that asks above an amount, one read-only), served on
 * loopback for two callers, and 2026-07-28 clients that answer approval
 * questions as told (or, in manual mode, leave the rounds to the test).
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import type { App } from "../../shared/app/app.ts";
import { createJsonSchemaValidator } from "../../shared/mcp/json_schema_validator.ts";
import { MemoryAuditLog } from "../fakes/memory_audit_log.ts";
import { mcpApp, serve } from "./mcp_fixture.ts";
import { countedTools } from "./runs_fixture.ts";
import type { ConfigOptions } from "../../shared/config/config_options.ts";

/** API keys of two callers. */
export const KEYS = { alice: "alice-key-0123456789abcdef", bob: "bob-key-0123456789abcdefgh" };

/** What the person answers. */
export type Answer = { action: "accept" | "decline" | "cancel"; content?: Record<string, boolean> };

/** Yes. */
export const APPROVE: Answer = { action: "accept", content: { approve: true } };

/** The served app, the calls its tools made, its audit rows. */
export interface ApprovalsSetup {
  app: App;
  calls: string[];
  audit: MemoryAuditLog;
  url: URL;
  close(): Promise<void>;
}

/** The app with counted tools, served on loopback. */
export async function approvalsSetup(
  env: Record<string, string> = {},
  options: ConfigOptions = {},
): Promise<ApprovalsSetup> {
  const calls: string[] = [];
  const audit = new MemoryAuditLog();
  const app = await mcpApp({ MCP_LOOP_API_KEYS: `alice=${KEYS.alice},bob=${KEYS.bob}`, ...env }, {
    tools: countedTools(calls),
    audit,
  }, options);
  const server = serve(app);
  return {
    app,
    calls,
    audit,
    url: server.url,
    close: async () => {
      await server.close();
      await app.close();
    },
  };
}

/**
 * A 2026-07-28 client of `key`. With `answer` it declares form elicitation and
 * answers every question so (recording it in `asked`); `autoFulfill: false`
 * leaves the rounds to the test (`request(…, {allowInputRequired: true})`).
 */
export async function modernClient(
  url: URL,
  key: string,
  { answer, asked = [], autoFulfill = true }: {
    answer?: Answer;
    asked?: unknown[];
    autoFulfill?: boolean;
  } = {},
): Promise<ModernClient> {
  const client = new ModernClient({ name: "approvals-test", version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    jsonSchemaValidator: createJsonSchemaValidator(),
    capabilities: answer || !autoFulfill ? { elicitation: { form: {} } } : {},
    inputRequired: { autoFulfill },
  });
  if (answer) {
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(request.params);
      return Promise.resolve(answer);
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** A tool result's first text. */
export const text = (result: unknown) =>
  (result as { content: { text: string }[] }).content[0].text;

/** Whether a tool result is an error. */
export const isError = (result: unknown) => (result as { isError?: boolean }).isError === true;
