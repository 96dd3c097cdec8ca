/**
 * The diagnostic tools the MCP conformance suite's `server-stateless`
 * scenario calls (the SDK's own conformance fixture has them too), added to
 * the real server for the conformance test only:
 * - `test_missing_capability` needs sampling, which the probe does not declare:
 *   the SDK must answer -32021 (400) instead of running it;
 * - `test_streaming_elicitation` answers plainly (no server→client request);
 * - `test_logging_tool` answers without logging (this server never logs to clients).
 */
import { inputRequired, type Server } from "@modelcontextprotocol/server";
import type { McpServerDeps } from "../../shared/mcp/mcp_server.ts";
import { callTool, listToolsFor } from "../../shared/mcp/mcp_tools.ts";
import type { Caller } from "../../shared/ports.ts";

const EMPTY = { type: "object" as const, properties: {} };

const DIAGNOSTICS = [
  { name: "test_missing_capability", description: "Needs the client's sampling capability" },
  {
    name: "test_streaming_elicitation",
    description: "Answers without any server-to-client request",
  },
  { name: "test_logging_tool", description: "Answers without a log message" },
].map((tool) => ({ ...tool, inputSchema: EMPTY }));

/** `extend` for the MCP server deps: the diagnostic tools beside the registry's. */
export function addDiagnosticTools(
  server: Server,
  { deps, caller }: { deps: McpServerDeps; caller: Caller },
): void {
  server.setRequestHandler("tools/list", () => ({
    tools: [...listToolsFor(deps, caller), ...DIAGNOSTICS],
  }));
  server.setRequestHandler("tools/call", (request, ctx) => {
    const { name } = request.params;
    if (name === "test_missing_capability") {
      return ctx.mcpReq.inputResponses?.llm === undefined
        ? inputRequired({
          inputRequests: {
            llm: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "ping?" } }],
              maxTokens: 8,
            }),
          },
        })
        : { content: [{ type: "text", text: "answered" }] };
    }
    if (name === "test_streaming_elicitation" || name === "test_logging_tool") {
      return { content: [{ type: "text", text: `${name}: done` }] };
    }
    return callTool(deps, caller, request.params, ctx);
  });
}
