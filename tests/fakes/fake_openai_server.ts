/**
 * A fake OpenAI API on loopback, for testing the OpenAI adapters through the
 * real SDK and network stack. It is at least as strict as the real API: it
 * refuses what OpenAI refuses (the rules and their sources are in
 * `openai_api_rules.ts`, `openai_embedding_rules.ts` and
 * `openai_strict_schema.ts`), with the real status and error shape, before any
 * scripted reply is used. It records every
 * request and answers chat completions from a queue of scripted replies;
 * embeddings are hashing vectors of the inputs unless a reply is queued.
 *
 * Usage is counted as the API counts it: prompt and completion tokens with the
 * model's tokenizer; reasoning models spend reasoning tokens by
 * `reasoning_effort` (counted against `max_completion_tokens`: a budget too
 * small leaves the answer empty with `finish_reason: "length"`, as the real
 * API does); `prompt_tokens_details.cached_tokens` is the longest prefix this
 * prompt shares with an earlier one of the same model, from 1,024 tokens in
 * steps of 128, as OpenAI's prompt caching reports it.
 */
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import {
  type ApiError,
  chatModelKind,
  chatRequestError,
  countTokens,
  firstTokens,
  promptTokens,
} from "./openai_api_rules.ts";
import { embeddingDimensions, embeddingRequestError } from "./openai_embedding_rules.ts";

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

/** How a fake differs from OpenAI's API. */
export interface FakeOptions {
  /** Serve `/embeddings` (default true); false answers 404, like Groq's or Anthropic's API. */
  embeddings?: boolean;
}

/** Reasoning tokens spent per `reasoning_effort` (the API's default is `medium`). */
export const REASONING_TOKENS: Record<string, number> = {
  none: 0,
  minimal: 16,
  low: 128,
  medium: 512,
  high: 2_048,
  xhigh: 4_096,
  max: 8_192,
};

/** The running fake. */
export class FakeOpenAiServer {
  readonly requests: FakeRequest[] = [];
  readonly chatReplies: FakeReply[] = [];
  readonly embeddingReplies: FakeReply[] = [];
  /** Every error the fake answered (the API's rules, not scripted replies), in order. */
  readonly refusals: ApiError[] = [];
  /** Requests that hung and were released by the client going away or by `close`. */
  released = 0;
  /** Requests that reached a scripted hang so far. */
  hung = 0;
  readonly #hangWaiters: { count: number; resolve: () => void }[] = [];
  readonly #server: Deno.HttpServer;
  readonly #closing = new AbortController();
  readonly #embeddings: boolean;
  /** Earlier prompts per model, for cached tokens. */
  readonly #prompts = new Map<string, number[][]>();

  private constructor({ embeddings = true }: FakeOptions) {
    this.#embeddings = embeddings;
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req) => this.#handle(req),
    );
  }

  /** Starts a fake on a free loopback port. */
  static start(options: FakeOptions = {}): FakeOpenAiServer {
    return new FakeOpenAiServer(options);
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

  /** Resolves once `count` requests in all have reached a scripted hang. */
  untilHung(count = 1): Promise<void> {
    if (this.hung >= count) return Promise.resolve();
    const waiter = Promise.withResolvers<void>();
    this.#hangWaiters.push({ count, resolve: waiter.resolve });
    return waiter.promise;
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
      const refused = chatRequestError(body);
      if (refused) return this.#refuse(refused);
      return await this.#reply(req, this.chatReplies.shift(), this.#chat(body));
    }
    if (path.endsWith("/embeddings") && this.#embeddings) {
      const checked = embeddingRequestError(body);
      if ("error" in checked) return this.#refuse(checked);
      return await this.#reply(req, this.embeddingReplies.shift(), (text) => {
        if (text !== undefined) throw new Error("embedding replies are raw HTTP answers or hangs");
        return embeddingResponse(body, checked);
      });
    }
    return this.#refuse({
      status: 404,
      error: {
        message: `Unknown request URL: POST ${path}. Please check the URL for typos.`,
        type: "invalid_request_error",
        param: null,
        code: "unknown_url",
      },
    });
  }

  #refuse(refusal: ApiError): Response {
    this.refusals.push(refusal);
    return Response.json({ error: refusal.error }, { status: refusal.status });
  }

  async #reply(
    req: Request,
    reply: FakeReply | undefined,
    answer: (text?: string) => unknown,
  ): Promise<Response> {
    if (reply !== undefined && typeof reply === "object" && "hang" in reply) {
      this.hung++;
      for (const waiter of this.#hangWaiters.filter((w) => w.count <= this.hung)) {
        this.#hangWaiters.splice(this.#hangWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
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
    return Response.json(answer(reply));
  }

  /** A chat completion answering `body` with the next scripted text (default `[]`). */
  #chat(body: Record<string, unknown>): (text?: string) => unknown {
    return (text = "[]") => {
      const model = body.model as string;
      const kind = chatModelKind(model)!;
      const prompt = promptTokens(kind.encoding, body);
      const cached = this.#cachedTokens(model, prompt);
      const budget = (body.max_completion_tokens ?? body.max_tokens ?? Infinity) as number;
      const reasoning = kind.efforts
        ? Math.min(budget, REASONING_TOKENS[(body.reasoning_effort as string) ?? "medium"])
        : 0;
      const wanted = countTokens(kind.encoding, text);
      const room = budget - reasoning;
      const content = wanted <= room ? text : firstTokens(kind.encoding, text, room);
      const completion = Math.min(wanted, room);
      return {
        id: `chatcmpl-fake-${this.requests.length}`,
        object: "chat.completion",
        created: 0,
        model,
        choices: [{
          index: 0,
          message: { role: "assistant", content, refusal: null },
          finish_reason: wanted <= room ? "stop" : "length",
        }],
        usage: {
          prompt_tokens: prompt.length,
          completion_tokens: reasoning + completion,
          total_tokens: prompt.length + reasoning + completion,
          prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
          completion_tokens_details: {
            reasoning_tokens: reasoning,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        },
      };
    };
  }

  /** The longest prefix shared with an earlier prompt, from 1,024 tokens in steps of 128. */
  #cachedTokens(model: string, prompt: number[]): number {
    const earlier = this.#prompts.get(model) ?? [];
    let longest = 0;
    for (const previous of earlier) {
      let n = 0;
      const max = Math.min(previous.length, prompt.length);
      while (n < max && previous[n] === prompt[n]) n++;
      longest = Math.max(longest, n);
    }
    earlier.push(prompt);
    this.#prompts.set(model, earlier);
    return longest < 1_024 ? 0 : 1_024 + Math.floor((longest - 1_024) / 128) * 128;
  }
}

function embeddingResponse(
  body: Record<string, unknown>,
  { inputs, tokens }: { inputs: string[]; tokens: number[] },
) {
  const dimensions = embeddingDimensions(body);
  const total = tokens.reduce((sum, count) => sum + count, 0);
  return {
    object: "list",
    model: body.model,
    data: inputs.map((text, index) => ({
      object: "embedding",
      index,
      embedding: hashingVector(text, dimensions),
    })),
    usage: { prompt_tokens: total, total_tokens: total },
  };
}
