/**
 * The MCP SDK with nothing of ours around it, for the MCP benchmark's ceiling:
 * one trivial tool, served with the SDK's own handlers on a bare `Deno.serve`
 * (2026-07-28 through `createMcpHandler`, 2025-11-25 through a stateless
 * JSON-answering transport, a server per request either way), no
 * authentication, logging or audit. Listens on `PORT`; `GET` answers "ok".
 */
import {
  createMcpHandler,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

const TOOLS = [{
  name: "finalize_summary",
  description: "Answers done",
  inputSchema: { type: "object" as const, properties: {} },
}];

function newServer(): Server {
  const server = new Server({ name: "sdk-alone", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", () => ({ tools: TOOLS }));
  server.setRequestHandler("tools/call", () => ({ content: [{ type: "text", text: "done" }] }));
  return server;
}

const modern = createMcpHandler(() => newServer(), { legacy: "reject" });

Deno.serve(
  { hostname: "127.0.0.1", port: Number(Deno.env.get("PORT")), onListen() {} },
  async (req) => {
    if (req.method === "GET") return new Response("ok");
    const body = await req.json();
    if (req.headers.get("mcp-protocol-version") === "2026-07-28") {
      return await modern.fetch(req, { parsedBody: body });
    }
    const server = newServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    return await transport.handleRequest(req, { parsedBody: body });
  },
);
