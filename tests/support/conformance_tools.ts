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
 *   about by the project's own approval flow;
 * - the 2025-11-25 elicitation scenarios (`tools-call-elicitation`,
 *   `elicitation-sep1034-defaults`, `elicitation-sep1330-enums`), whose client
 *   declares elicitation at `initialize` and so gets a session:
 *   `test_elicitation`, `test_elicitation_sep1034_defaults` and
 *   `test_elicitation_sep1330_enums` ask their question the way approvals do
 *   (an `input_required` result the SDK turns into `elicitation/create` on
 *   the call's SSE stream; the answer comes back through the session store).
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
import type { Connection, McpServerDeps } from "../../shared/mcp/mcp_server.ts";
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

/** The 2025-11-25 elicitation scenarios' tools: what each asks (the suite's README of each scenario). */
const ELICITATIONS: Record<
  string,
  { description: string; message?: string; schema: Record<string, unknown>; done: string }
> = {
  test_elicitation: {
    description: "Asks the user for a username and an email",
    schema: {
      type: "object",
      properties: {
        username: { type: "string", description: "User's response" },
        email: { type: "string", description: "User's email address" },
      },
      required: ["username", "email"],
    },
    done: "User response",
  },
  test_elicitation_sep1034_defaults: {
    description: "Asks with a default for every primitive type",
    message: "Please review the defaults",
    schema: {
      type: "object",
      properties: {
        name: { type: "string", default: "John Doe" },
        age: { type: "integer", default: 30 },
        score: { type: "number", default: 95.5 },
        status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
        verified: { type: "boolean", default: true },
      },
    },
    done: "Elicitation completed",
  },
  test_elicitation_sep1330_enums: {
    description: "Asks with every kind of enum",
    message: "Please choose",
    schema: {
      type: "object",
      properties: {
        untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
        titledSingle: {
          type: "string",
          oneOf: [
            { const: "value1", title: "First Option" },
            { const: "value2", title: "Second Option" },
            { const: "value3", title: "Third Option" },
          ],
        },
        legacyEnum: {
          type: "string",
          enum: ["opt1", "opt2", "opt3"],
          enumNames: ["Option One", "Option Two", "Option Three"],
        },
        untitledMulti: {
          type: "array",
          items: { type: "string", enum: ["option1", "option2", "option3"] },
        },
        titledMulti: {
          type: "array",
          items: {
            anyOf: [
              { const: "value1", title: "First Choice" },
              { const: "value2", title: "Second Choice" },
              { const: "value3", title: "Third Choice" },
            ],
          },
        },
      },
    },
    done: "Elicitation completed",
  },
};

const ELICITATION_TOOLS = Object.entries(ELICITATIONS).map(([name, { description }]) => ({
  name,
  description,
  inputSchema: name === "test_elicitation"
    ? {
      type: "object" as const,
      properties: { message: { type: "string" as const } },
      required: ["message"],
    }
    : EMPTY,
}));

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
  { deps, caller, connection }: { deps: McpServerDeps; caller: Caller; connection: Connection },
): void {
  server.setRequestHandler("tools/list", () => ({
    tools: [...listToolsFor(deps, caller), ...DIAGNOSTICS, ...ELICITATION_TOOLS],
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
    if (name in ELICITATIONS) return elicitationDiagnostic(name, request.params.arguments, ctx);
    return callTool(deps, caller, request.params, ctx, connection);
  });
}

/** Asks the scenario's question; answers with what came back. */
function elicitationDiagnostic(name: string, args: unknown, ctx: ServerContext) {
  const { message, schema, done } = ELICITATIONS[name];
  const answer = ctx.mcpReq.inputResponses?.question as
    | { action?: string; content?: unknown }
    | undefined;
  if (answer !== undefined) {
    return {
      content: [{
        type: "text" as const,
        text: `${done}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`,
      }],
    };
  }
  const asked = (args as { message?: unknown } | undefined)?.message;
  return inputRequired({
    inputRequests: {
      question: inputRequired.elicit({
        message: typeof asked === "string" ? asked : message ?? name,
        // deno-lint-ignore no-explicit-any
        requestedSchema: schema as any,
      }),
    },
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
