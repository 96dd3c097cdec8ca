/**
 * The diagnostic tools the MCP conformance suite calls (the SDK's own
 * conformance fixture has them too), added to the real server for the
 * conformance test only:
 * - `server-stateless`: `test_missing_capability` needs sampling, which the
 *   probe does not declare (the SDK must answer -32021 (400) instead of running
 *   it); `test_streaming_elicitation` answers plainly (no server→client
 *   request); `test_logging_tool` answers without logging (this server never
 *   logs to clients);
 * - the `input-required-result-*` scenarios (multi round-trip requests):
 *   `test_input_required_result_elicitation` asks a name,
 *   `…_request_state` asks a confirmation with a state sealed by the server's
 *   own request-state codec (the one approvals use, so its verify hook is what
 *   the scenario exercises), `…_capabilities` asks only what the client
 *   declared. `test_input_required_result_tampered_state` is no diagnostic: it
 *   is a registry tool that needs approval ({@link APPROVAL_PROBE_TOOL}), asked
 *   about by the project's own approval flow.
 */
import { z } from "zod";
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { requestStateCodec } from "../../shared/mcp/mcp_approval.ts";
import type { McpServerDeps } from "../../shared/mcp/mcp_server.ts";
import { callTool, listToolsFor } from "../../shared/mcp/mcp_tools.ts";
import type { Caller } from "../../shared/ports.ts";
import { defineTool } from "../../shared/tools/tool.ts";

const EMPTY = { type: "object" as const, properties: {} };
const NAME = {
  type: "object" as const,
  properties: { name: { type: "string" as const } },
  required: ["name"],
};
const OK = {
  type: "object" as const,
  properties: { ok: { type: "boolean" as const } },
  required: ["ok"],
};

const DIAGNOSTICS = [
  { name: "test_missing_capability", description: "Needs the client's sampling capability" },
  {
    name: "test_streaming_elicitation",
    description: "Answers without any server-to-client request",
  },
  { name: "test_logging_tool", description: "Answers without a log message" },
  { name: "test_input_required_result_elicitation", description: "Asks the person's name" },
  { name: "test_input_required_result_request_state", description: "Asks with a sealed state" },
  {
    name: "test_input_required_result_capabilities",
    description: "Asks only what the client declared",
  },
].map((tool) => ({ ...tool, inputSchema: EMPTY }));

/** A registry tool that needs a person's approval, named as the tampered-state scenario calls it. */
export const APPROVAL_PROBE_TOOL = defineTool({
  name: "test_input_required_result_tampered_state",
  description: "Does nothing, once a person approves it",
  argsSchema: z.object({}),
  needsApproval: true,
  run: () => "approved and done",
});

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
        ? inputRequired({ inputRequests: { llm: samplingRequest() } })
        : { content: [{ type: "text", text: "answered" }] };
    }
    if (name === "test_streaming_elicitation" || name === "test_logging_tool") {
      return { content: [{ type: "text", text: `${name}: done` }] };
    }
    if (name.startsWith("test_input_required_result_") && name !== APPROVAL_PROBE_TOOL.name) {
      return inputRequiredDiagnostic(name, deps, ctx);
    }
    return callTool(deps, caller, request.params, ctx);
  });
}

async function inputRequiredDiagnostic(name: string, deps: McpServerDeps, ctx: ServerContext) {
  const responses = ctx.mcpReq.inputResponses;
  switch (name) {
    case "test_input_required_result_elicitation": {
      const answer = acceptedContent<{ name?: unknown }>(responses, "user_name");
      if (typeof answer?.name === "string") {
        return { content: [{ type: "text" as const, text: `Hello, ${answer.name}!` }] };
      }
      return inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({ message: "What is your name?", requestedSchema: NAME }),
        },
      });
    }
    case "test_input_required_result_request_state": {
      const state = ctx.mcpReq.requestState<{ step?: string }>();
      if (state?.step === "asked" && acceptedContent<{ ok?: unknown }>(responses, "confirm")?.ok) {
        return { content: [{ type: "text" as const, text: "state-ok" }] };
      }
      const codec = await requestStateCodec(deps.approvals!);
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({ message: "Please confirm", requestedSchema: OK }),
        },
        requestState: await codec.mint({ step: "asked" }, ctx),
      });
    }
    default: {
      const declared = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
        CLIENT_CAPABILITIES_META_KEY
      ] as { elicitation?: object; sampling?: object } | undefined;
      if (responses === undefined && (declared?.elicitation || declared?.sampling)) {
        return inputRequired({
          inputRequests: {
            ...(declared.elicitation
              ? { confirm: inputRequired.elicit({ message: "Go on?", requestedSchema: OK }) }
              : {}),
            ...(declared.sampling ? { llm: samplingRequest() } : {}),
          },
        });
      }
      return { content: [{ type: "text" as const, text: "done" }] };
    }
  }
}

function samplingRequest() {
  return inputRequired.createMessage({
    messages: [{ role: "user", content: { type: "text", text: "ping?" } }],
    maxTokens: 8,
  });
}
