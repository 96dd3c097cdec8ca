/**
 * `mcp:stdio` when the HTTP server already holds the data folder: a desktop
 * client on stdin/stdout is bridged to that server's MCP endpoint, so the
 * desktop client and the web app share one memory (PGlite allows one process
 * per folder). Each JSON-RPC message read by the SDK's stdio transport is
 * POSTed to the endpoint (with the 2026-07-28 headers when the message claims
 * that era); each answer is written back. The endpoint is stateless, so
 * nothing but the messages needs to cross.
 */
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { describeError } from "../errors.ts";
import type { Logger } from "../ports.ts";
import { type StdioServing, watchClose } from "../mcp/stdio.ts";

/** Bridges stdio to the MCP endpoint at `url`. */
export function bridgeStdio(
  { url, token, logger, transport = new StdioServerTransport(), fetch = globalThis.fetch }: {
    url: string;
    /** Sent as the bearer credential, when the server requires one. */
    token?: string;
    logger: Logger;
    transport?: StdioServerTransport;
    fetch?: typeof globalThis.fetch;
  },
): StdioServing {
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => ended = resolve);
  watchClose(transport, () => ended());
  const reply = (message: JSONRPCMessage) =>
    transport.send(message).catch((error) =>
      logger.warn("stdio bridge: could not write an answer", { error: describeError(error) })
    );
  transport.onmessage = async (message) => {
    const id = (message as { id?: string | number }).id;
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: headersFor(message, token),
        body: JSON.stringify(message),
      });
      for (const answer of await answersOf(res)) await reply(answer);
    } catch (error) {
      if (id === undefined) return;
      await reply({
        jsonrpc: "2.0",
        id,
        error: {
          code: -32000,
          message: `The MCP server at ${url} did not answer: ${describeError(error)}`,
        },
      });
    }
  };
  transport.start().catch((error) => {
    logger.error("stdio bridge: could not read stdin", { error: describeError(error) });
    ended();
  });
  return {
    closed,
    stop: async () => {
      await transport.close().catch(() => {});
      ended();
    },
  };
}

/** The HTTP headers of one message: JSON in, JSON or SSE out, the era's headers, the credential. */
function headersFor(message: JSONRPCMessage, token?: string): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  const { method, params } = message as { method?: string; params?: Record<string, unknown> };
  const meta = params?._meta as Record<string, unknown> | undefined;
  const version = meta?.["io.modelcontextprotocol/protocolVersion"];
  if (typeof method === "string" && typeof version === "string") {
    headers["mcp-protocol-version"] = version;
    headers["mcp-method"] = method;
    const name = params?.name ?? params?.uri;
    if (typeof name === "string") headers["mcp-name"] = name;
  }
  return headers;
}

/** The JSON-RPC messages of an answer: a JSON body (one or a batch), SSE `data:` lines, or none. */
async function answersOf(res: Response): Promise<JSONRPCMessage[]> {
  const text = await res.text();
  if (!text.trim()) return [];
  const type = res.headers.get("content-type") ?? "";
  const bodies = type.includes("text/event-stream")
    ? text.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5))
    : [text];
  return bodies.flatMap((body) => {
    const parsed = JSON.parse(body);
    return Array.isArray(parsed) ? parsed : [parsed];
  });
}
