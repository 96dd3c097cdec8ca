/**
 * The remote MCP client's 2025-11-25 session renewal under concurrency, and
 * its notifications bounded like its requests: against a fake `fetch` that,
 * like the real one, rejects when its signal aborts.
 */
import assert from "node:assert/strict";
import { createJsonSchemaValidator } from "../../shared/mcp/json_schema_validator.ts";
import { RemoteMcpClient } from "../../shared/mcp/remote_client.ts";

type Handler = (body: Record<string, unknown>, headers: Headers) => Promise<Response>;

/** A fetch over `handle` that rejects when the request's signal aborts, as fetch does. */
function fakeFetch(handle: Handler, sent: string[]): typeof fetch {
  return (_url, init) => {
    const headers = new Headers(init?.headers);
    if (init?.method === "GET") {
      const resumeFrom = headers.get("last-event-id");
      sent.push(
        `GET ${headers.get("mcp-session-id") ?? "-"}${resumeFrom ? ` @${resumeFrom}` : ""}`,
      );
      return handle({ method: "GET" }, headers);
    }
    if (init?.method === "DELETE") return Promise.resolve(new Response(null, { status: 200 }));
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    sent.push(`${body.method ?? "response"} ${headers.get("mcp-session-id") ?? "-"}`);
    const signal = init?.signal;
    return new Promise((resolve, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      handle(body, headers).then(resolve, reject);
    });
  };
}

const answer = (id: unknown, result: Record<string, unknown>, headers?: HeadersInit) =>
  Response.json({ jsonrpc: "2.0", id, result }, { headers });

/** A 2025-11-25 server whose sessions the test ends, and whose `initialize` waits for `gate`. */
function legacyServer() {
  const state = {
    session: "s0",
    count: 0,
    gate: Promise.resolve(),
    arrived: () => {},
    /** The open notification streams (GET offered when set). */
    streams: undefined as ReadableStreamDefaultController<Uint8Array>[] | undefined,
  };
  const handle: Handler = async (body, headers) => {
    if (body.method === "GET") return openStream(state, headers);
    if (body.method === "server/discover") return new Response("{}", { status: 400 });
    if (body.method === "initialize") {
      state.arrived();
      await state.gate;
      state.session = `s${++state.count}`;
      return answer(body.id, { protocolVersion: "2025-11-25", capabilities: { tools: {} } }, {
        "mcp-session-id": state.session,
      });
    }
    if (body.id === undefined) return new Response(null, { status: 202 });
    const id = headers.get("mcp-session-id");
    if (id !== state.session) {
      return new Response(id ? "session gone" : "no session", { status: id ? 404 : 400 });
    }
    return answer(body.id, { tools: [] });
  };
  return { state, handle };
}

/** A GET notification stream of the live session (405 when none is offered, 404 for a lapsed one). */
function openStream(
  state: { session: string; streams?: ReadableStreamDefaultController<Uint8Array>[] },
  headers: Headers,
): Promise<Response> {
  if (!state.streams) return Promise.resolve(new Response(null, { status: 405 }));
  if (headers.get("mcp-session-id") !== state.session) {
    return Promise.resolve(new Response("session gone", { status: 404 }));
  }
  const body = new ReadableStream<Uint8Array>({ start: (c) => void state.streams!.push(c) });
  return Promise.resolve(
    new Response(body, { headers: { "content-type": "text/event-stream" } }),
  );
}

/** A client of `handle` over the fake fetch, recording what it sends in `sent`. */
function clientOf(
  handle: Handler,
  sent: string[],
  options: Partial<ConstructorParameters<typeof RemoteMcpClient>[0]> = {},
): RemoteMcpClient {
  return new RemoteMcpClient({
    url: "http://remote.test/mcp",
    timeoutMs: 30_000,
    validator: createJsonSchemaValidator(),
    fetch: fakeFetch(handle, sent),
    ...options,
  });
}

Deno.test("remote client: requests that find the session gone, or start while it is renewed, share one new initialize and carry its id", async () => {
  const server = legacyServer();
  const sent: string[] = [];
  const client = clientOf(server.handle, sent);
  await client.connect();
  let open!: () => void;
  server.state.gate = new Promise((resolve) => open = resolve);
  const renewing = new Promise<void>((resolve) => server.state.arrived = resolve);
  server.state.session = "expired";
  const first = client.request("tools/list", {});
  // The first request's 404 starts the renewal, which waits at the gate; the second starts then.
  await renewing;
  const second = client.request("tools/list", {});
  open();
  assert.deepEqual(await Promise.all([first, second]), [{ tools: [] }, { tools: [] }]);
  assert.equal(server.state.count, 2, "one initialize at connect, one renewal");
  assert.deepEqual(sent.filter((line) => line.startsWith("tools/list")), [
    "tools/list s1",
    "tools/list s2",
    "tools/list s2",
  ]);
  await client.close({ endSession: false });
});

Deno.test("remote client: a server that never answers notifications/initialized fails connect at the timeout", async () => {
  const server = legacyServer();
  const silent: Handler = (body, headers) =>
    body.method === "notifications/initialized"
      ? new Promise<Response>(() => {})
      : server.handle(body, headers);
  const client = clientOf(silent, [], { timeoutMs: 50 });
  await assert.rejects(client.connect(), /timed out.*notifications\/initialized/);
  await client.close({ endSession: false });
});

Deno.test("remote client: a notification stream whose session lapsed is opened again in a new session, not lost", async () => {
  const server = legacyServer();
  server.state.streams = [];
  const sent: string[] = [];
  const lost: string[] = [];
  let heard!: (method: string) => void;
  const notified = new Promise<string>((resolve) => heard = resolve);
  const client = clientOf(server.handle, sent, {
    onNotification: (method) => heard(method),
    onLost: (reason) => lost.push(reason),
  });
  await client.connect();
  // The session lapses and the server ends its stream; the client opens it again (404), starts a
  // new session, and hears a notification on the new session's stream.
  server.state.session = "expired";
  const [first] = server.state.streams.splice(0);
  first.close();
  const reopened = new Promise<void>((resolve) => {
    const push = server.state.streams!.push.bind(server.state.streams);
    server.state.streams!.push = (...c) => (resolve(), push(...c));
  });
  await reopened;
  const [second] = server.state.streams;
  second.enqueue(new TextEncoder().encode(
    'data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n',
  ));
  assert.equal(await notified, "notifications/tools/list_changed");
  assert.deepEqual(lost, []);
  assert.deepEqual(sent.filter((line) => line.startsWith("GET")), ["GET s1", "GET s1", "GET s2"]);
  await client.close({ endSession: false });
});

Deno.test("remote client: a stream opened again in a new session never resumes from the old session's event id", async () => {
  const server = legacyServer();
  server.state.streams = [];
  const sent: string[] = [];
  const client = clientOf(server.handle, sent, { onLost: () => {} });
  await client.connect();
  const nextStream = () =>
    new Promise<ReadableStreamDefaultController<Uint8Array>>((resolve) => {
      const push = server.state.streams!.push.bind(server.state.streams);
      server.state.streams!.push = (...c) => (resolve(c[0]), push(...c));
    });
  const send = (stream: ReadableStreamDefaultController<Uint8Array>, text: string) =>
    stream.enqueue(new TextEncoder().encode(text));
  // The first session's stream names an event (and a short retry), then the session lapses.
  const [first] = server.state.streams.splice(0);
  send(first, "retry: 5\nid: old-7\ndata:\n\n");
  server.state.session = "expired";
  let opened = nextStream();
  first.close();
  const second = await opened;
  // The new session's stream ends with no event id of its own: reopened from its start.
  opened = nextStream();
  second.close();
  await opened;
  assert.deepEqual(sent.filter((line) => line.startsWith("GET")), [
    "GET s1",
    "GET s1 @old-7",
    "GET s2",
    "GET s2",
  ]);
  await client.close({ endSession: false });
});

Deno.test("remote client: a stream reopened after a request renewed the session starts from the new session's beginning", async () => {
  const server = legacyServer();
  server.state.streams = [];
  const sent: string[] = [];
  let heard!: () => void;
  const notified = new Promise<void>((resolve) => heard = resolve);
  const client = clientOf(server.handle, sent, { onNotification: () => heard(), onLost: () => {} });
  await client.connect();
  // The first session's stream names an event; the client has read it once it passed it on.
  const [first] = server.state.streams.splice(0);
  first.enqueue(new TextEncoder().encode(
    'retry: 5\nid: old-7\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n',
  ));
  await notified;
  // The session lapses; a request finds it gone and renews it before the stream ends.
  server.state.session = "expired";
  await client.listTools();
  const reopened = new Promise<void>((resolve) => {
    const push = server.state.streams!.push.bind(server.state.streams);
    server.state.streams!.push = (...c) => (resolve(), push(...c));
  });
  first.close();
  await reopened;
  assert.deepEqual(sent.filter((line) => line.startsWith("GET")), ["GET s1", "GET s2"]);
  await client.close({ endSession: false });
});
