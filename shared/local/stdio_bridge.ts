/**
 * `mcp:stdio` when the HTTP server already holds the data folder: a desktop
 * client on stdin/stdout is bridged to that server's MCP endpoint, so the
 * desktop client and the web app share one memory (PGlite allows one process
 * per folder). Each JSON-RPC message read by the SDK's stdio transport is
 * POSTed to the endpoint (with the 2026-07-28 headers when the message claims
 * that era); each answer is written back as it arrives — an SSE answer message
 * by message, so a question the server asks while a call waits (an approval's
 * `elicitation/create`) reaches the client, whose answer is POSTed like any
 * message. A 2025-11-25 client that declares elicitation gets a session: its
 * `Mcp-Session-Id` goes with every later POST, and is ended (DELETE) when the
 * bridge stops.
 */
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { EventSourceParserStream } from "eventsource-parser/stream";
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
  let session: string | undefined;
  const post = (message: JSONRPCMessage) =>
    fetch(url, {
      method: "POST",
      headers: headersFor(message, token, session),
      body: JSON.stringify(message),
    });
  transport.onmessage = async (message) => {
    const id = (message as { id?: string | number }).id;
    try {
      let res = await post(message);
      if (res.status === 404 && session !== undefined) {
        // The session lapsed or was ended: go on without one (approvals then cannot be asked).
        await res.body?.cancel();
        session = undefined;
        res = await post(message);
      }
      session = res.headers.get("mcp-session-id") ?? session;
      for await (const answer of answersOf(res)) await reply(answer);
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
      if (session !== undefined) {
        await fetch(url, {
          method: "DELETE",
          headers: {
            "mcp-session-id": session,
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
        }).then((res) => res.body?.cancel()).catch(() => {});
      }
      await transport.close().catch(() => {});
      ended();
    },
  };
}

/** The HTTP headers of one message: JSON in, JSON or SSE out, the era's headers, the credential, the session. */
function headersFor(
  message: JSONRPCMessage,
  token?: string,
  session?: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(session ? { "mcp-session-id": session } : {}),
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

/**
 * The JSON-RPC messages of an answer as they arrive: a JSON body (one or a
 * batch), each SSE `data:` event as it comes, or none (202).
 */
async function* answersOf(res: Response): AsyncGenerator<JSONRPCMessage> {
  if (!res.body) return;
  const type = res.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream")) {
    const text = await res.text();
    if (!text.trim()) return;
    const parsed = JSON.parse(text);
    yield* Array.isArray(parsed) ? parsed : [parsed];
    return;
  }
  const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(
    new EventSourceParserStream(),
  );
  for await (const event of events) {
    if (!event.data.trim()) continue;
    const parsed = JSON.parse(event.data);
    yield* Array.isArray(parsed) ? parsed : [parsed];
  }
}
