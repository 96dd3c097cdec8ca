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
import process from "node:process";
import type { Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { describeError } from "../errors.ts";
import type { Logger } from "../ports.ts";
import { type StdioServing, watchClose } from "../mcp/stdio.ts";

/** Bridges stdio to the MCP endpoint at `url`. */
export function bridgeStdio(
  {
    url,
    token,
    logger,
    transport = new StdioServerTransport(),
    output = process.stdout,
    fetch = globalThis.fetch,
  }: {
    url: string;
    /** Sent as the bearer credential, when the server requires one. */
    token?: string;
    logger: Logger;
    /** Reads the client's messages (stdin). */
    transport?: StdioServerTransport;
    /** Where answers go (stdout): written directly, since the transport closes with stdin. */
    output?: Writable;
    fetch?: typeof globalThis.fetch;
  },
): StdioServing {
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => ended = resolve);
  const inFlight = new Set<Promise<void>>();
  // A client may close stdin right after its last request: every request read is answered first.
  watchClose(transport, () => void Promise.allSettled([...inFlight]).then(() => ended()));
  const reply = (message: JSONRPCMessage) =>
    writeLine(output, message).catch((error) =>
      logger.warn("stdio bridge: could not write an answer", { error: describeError(error) })
    );
  const link: Link = { url, token, fetch, reply };
  transport.onmessage = (message) => {
    const forwarded = forward(message, link);
    inFlight.add(forwarded);
    void forwarded.finally(() => inFlight.delete(forwarded));
  };
  transport.start().catch((error) => {
    logger.error("stdio bridge: could not read stdin", { error: describeError(error) });
    ended();
  });
  return {
    closed,
    stop: async () => {
      await endSession(link);
      await transport.close().catch(() => {});
      ended();
    },
  };
}

/** The endpoint, the credential, and the session its answers opened (2025-11-25 with elicitation). */
interface Link {
  url: string;
  token?: string;
  fetch: typeof globalThis.fetch;
  reply: (message: JSONRPCMessage) => Promise<void>;
  session?: string;
}

/** POSTs one message and writes back its answers as they come, or a JSON-RPC error. */
async function forward(message: JSONRPCMessage, link: Link): Promise<void> {
  const post = () =>
    link.fetch(link.url, {
      method: "POST",
      headers: headersFor(message, link.token, link.session),
      body: JSON.stringify(message),
    });
  const id = (message as { id?: string | number }).id;
  try {
    let res = await post();
    if (res.status === 404 && link.session !== undefined) {
      // The session lapsed or was ended: go on without one (approvals then cannot be asked).
      await res.body?.cancel();
      link.session = undefined;
      res = await post();
    }
    link.session = res.headers.get("mcp-session-id") ?? link.session;
    for await (const answer of answersOf(res)) await link.reply(answer);
  } catch (error) {
    if (id === undefined) return;
    await link.reply({
      jsonrpc: "2.0",
      id,
      error: {
        code: -32000,
        message: `The MCP server at ${link.url} did not answer: ${describeError(error)}`,
      },
    });
  }
}

/** Ends the bridge's session on the server (DELETE), when it has one. */
async function endSession({ url, token, fetch, session }: Link): Promise<void> {
  if (session === undefined) return;
  await fetch(url, {
    method: "DELETE",
    headers: { "mcp-session-id": session, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  }).then((res) => res.body?.cancel()).catch(() => {});
}

/** Writes one message as a line of JSON, settling once it is handed to the stream. */
function writeLine(output: Writable, message: JSONRPCMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    output.write(JSON.stringify(message) + "\n", (error) => error ? reject(error) : resolve());
  });
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
