/**
 * A fake OpenAI-compatible HTTP server on loopback, for testing the OpenAI
 * adapters through the real SDK and network stack. It records every request
 * and answers chat completions from a queue of scripted replies; embeddings
 * are hashing vectors of the inputs unless a reply is queued.
 */
import { hashingVector } from "../../shared/adapters/hashing/hashing_embedder.ts";

/** A scripted reply: assistant text, or a raw HTTP answer, or a hang. */
export type FakeReply =
  | string
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { hang: true };

/** One recorded request. */
export interface FakeRequest {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** The running fake. */
export class FakeOpenAiServer {
  readonly requests: FakeRequest[] = [];
  readonly chatReplies: FakeReply[] = [];
  readonly embeddingReplies: FakeReply[] = [];
  /** Requests that hung and were released by the client going away or by `close`. */
  released = 0;
  readonly #server: Deno.HttpServer;
  readonly #closing = new AbortController();

  private constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req) => this.#handle(req),
    );
  }

  /** Starts a fake on a free loopback port. */
  static start(): FakeOpenAiServer {
    return new FakeOpenAiServer();
  }

  /** The base URL to give the SDK (`OPENAI_BASE_URL`). */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.#server.addr as Deno.NetAddr).port}/v1`;
  }

  /** The chat completion requests so far. */
  get chatRequests(): FakeRequest[] {
    return this.requests.filter((r) => r.path.endsWith("/chat/completions"));
  }

  /** The embedding requests so far. */
  get embeddingRequests(): FakeRequest[] {
    return this.requests.filter((r) => r.path.endsWith("/embeddings"));
  }

  async close(): Promise<void> {
    this.#closing.abort();
    await this.#server.shutdown();
  }

  async #handle(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    const body = await req.json().catch(() => ({}));
    this.requests.push({ path, headers: Object.fromEntries(req.headers), body });
    if (path.endsWith("/chat/completions")) {
      return await this.#reply(req, this.chatReplies.shift(), body);
    }
    if (path.endsWith("/embeddings")) {
      return await this.#reply(req, this.embeddingReplies.shift(), body);
    }
    return Response.json({ error: { message: `no route ${path}` } }, { status: 404 });
  }

  async #reply(
    req: Request,
    reply: FakeReply | undefined,
    body: Record<string, unknown>,
  ): Promise<Response> {
    if (reply !== undefined && typeof reply === "object" && "hang" in reply) {
      await new Promise<void>((resolve) => {
        req.signal.addEventListener("abort", () => resolve(), { once: true });
        this.#closing.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      this.released++;
      return new Response(null, { status: 503 });
    }
    if (reply !== undefined && typeof reply === "object") {
      return Response.json(reply.body ?? { error: { message: "scripted error" } }, {
        status: reply.status,
        headers: { "retry-after-ms": "5", ...reply.headers },
      });
    }
    if (new URL(req.url).pathname.endsWith("/embeddings")) {
      return Response.json(embeddingResponse(body));
    }
    return Response.json(chatResponse(body, reply ?? "[]"));
  }
}

function chatResponse(body: Record<string, unknown>, content: string) {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 0,
    model: body.model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

function embeddingResponse(body: Record<string, unknown>) {
  const inputs = Array.isArray(body.input) ? body.input as string[] : [String(body.input)];
  return {
    object: "list",
    model: body.model,
    data: inputs.map((text, index) => ({
      object: "embedding",
      index,
      embedding: hashingVector(text),
    })),
    usage: { prompt_tokens: 1, total_tokens: 1 },
  };
}
