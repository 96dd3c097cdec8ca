/**
 * A client of OpenAI's HTTP API (or any compatible server) on `fetch`: the two
 * calls the adapters make, `POST /chat/completions` and `POST /embeddings`,
 * with the official SDK's retry policy (openai-node `src/client.ts`: 408, 409,
 * 429, 5xx, connection errors and timeouts are retried, `x-should-retry` and
 * `retry-after-ms`/`retry-after` are obeyed, else a backoff from 0.5 s doubling
 * to 8 s with up to 25 % jitter) and its error shapes (`status`, the body's
 * `error` with its `param`, a message that starts with the status). Why not the
 * SDK: Supabase's bundler ships every file of every npm package the function
 * reaches, and the `openai` package is 24 MB in 4,107 files, 1.96 MB of the
 * compressed bundle (docs/deploy.md#bundle-size), for these two calls.
 */
import { sleepUnlessAborted } from "../../abort.ts";
import type { ChatModelMessage } from "../../ports.ts";

/** Connection settings. */
export interface OpenAiClientOptions {
  apiKey?: string;
  /** Any OpenAI-compatible server (Ollama, vLLM, LiteLLM, gateways). */
  baseUrl?: string;
  /** Per-attempt timeout; the request deadline also aborts calls. */
  timeoutMs?: number;
  /** Retries with backoff on 408/409/429/5xx, connection errors and timeouts. */
  maxRetries?: number;
  /** The fetch to call (tests). */
  fetch?: typeof fetch;
}

/** OpenAI's own API, where no base URL is set. */
export const OPENAI_API_URL = "https://api.openai.com/v1";

/** The body of `POST /chat/completions`, as far as the adapters send it. */
export interface ChatCompletionParams {
  model: string;
  messages: readonly ChatModelMessage[];
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  reasoning_effort?: string;
  response_format?:
    | { type: "json_schema"; json_schema: { name: string; schema: unknown; strict: boolean } }
    | { type: "json_object" };
}

/** Token counts of a completion (OpenAI's `CompletionUsage`). */
export interface CompletionUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

/** The parts of a chat completion the adapters read. */
export interface ChatCompletionResponse {
  choices?: { message?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: CompletionUsage;
}

/** The body of `POST /embeddings`. */
export interface EmbeddingParams {
  model: string;
  input: string[];
  encoding_format: "float";
  dimensions?: number;
}

/** The parts of an embeddings answer the adapters read. */
export interface EmbeddingResponse {
  data?: { index: number; embedding: number[] }[];
  usage?: { prompt_tokens?: number };
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** The server answered with an error status. */
export class OpenAiApiError extends Error {
  override readonly name = "APIError";
  /** The body's `error` object (OpenAI's `{message, type, param, code}`), or the body. */
  readonly error: unknown;
  readonly param?: string;
  readonly code?: string;
  constructor(readonly status: number, body: unknown, readonly headers: Headers) {
    const error = (body as { error?: unknown } | undefined)?.error ?? body;
    const inner = error as { message?: unknown; param?: unknown; code?: unknown } | undefined;
    const text = typeof inner?.message === "string"
      ? inner.message
      : error !== undefined
      ? JSON.stringify(error)
      : "status code (no body)";
    super(`${status} ${text}`);
    this.error = error;
    if (typeof inner?.param === "string") this.param = inner.param;
    if (typeof inner?.code === "string") this.code = inner.code;
  }
}

/** The server could not be reached (or the connection broke). */
export class OpenAiConnectionError extends Error {
  override readonly name: string = "APIConnectionError";
  constructor(message = "Connection error.", options?: ErrorOptions) {
    super(message, options);
  }
}

/** An attempt ran past the client's timeout. */
export class OpenAiConnectionTimeoutError extends OpenAiConnectionError {
  override readonly name = "APIConnectionTimeoutError";
  constructor() {
    super("Request timed out.");
  }
}

/** The caller's signal aborted the call (never retried). */
export class OpenAiUserAbortError extends Error {
  override readonly name = "APIUserAbortError";
  constructor() {
    super("Request was aborted.");
  }
}

/** The client the adapters use. */
export interface OpenAiClient {
  readonly baseURL: string;
  readonly chat: {
    completions: {
      create(body: ChatCompletionParams, options?: CallOptions): Promise<ChatCompletionResponse>;
    };
  };
  readonly embeddings: {
    create(body: EmbeddingParams, options?: CallOptions): Promise<EmbeddingResponse>;
  };
}

/** The client. Local servers often need no key; a placeholder is sent, as the SDK did. */
export function createOpenAiClient(
  { apiKey, baseUrl, timeoutMs = 30_000, maxRetries = 2, fetch: fetcher = fetch }:
    OpenAiClientOptions,
): OpenAiClient {
  const baseURL = (baseUrl ?? OPENAI_API_URL).replace(/\/+$/, "");
  const headers = {
    authorization: `Bearer ${apiKey ?? "not-needed"}`,
    "content-type": "application/json",
    accept: "application/json",
  };
  const post = <T>(path: string, body: unknown, { signal }: CallOptions = {}) =>
    postWithRetries<T>({
      url: `${baseURL}${path}`,
      init: { method: "POST", headers, body: JSON.stringify(body) },
      fetcher,
      timeoutMs,
      maxRetries,
      signal,
    });
  return {
    baseURL,
    chat: { completions: { create: (body, options) => post("/chat/completions", body, options) } },
    embeddings: { create: (body, options) => post("/embeddings", body, options) },
  };
}

/** One POST with its retries. */
interface Post {
  url: string;
  init: RequestInit;
  fetcher: typeof fetch;
  timeoutMs: number;
  maxRetries: number;
  signal?: AbortSignal;
}

async function postWithRetries<T>(post: Post): Promise<T> {
  for (let retriesDone = 0;; retriesDone++) {
    const outcome = await attempt(post);
    if ("value" in outcome) return outcome.value as T;
    if (retriesDone >= post.maxRetries || !outcome.retry) throw outcome.error;
    await sleep(retryDelayMs(outcome.headers, retriesDone), post.signal);
  }
}

type Outcome = { value: unknown } | { error: Error; retry: boolean; headers?: Headers };

/** One attempt: the parsed body, or the error and whether the SDK's policy retries it. */
async function attempt({ url, init, fetcher, timeoutMs, signal }: Post): Promise<Outcome> {
  if (signal?.aborted) throw new OpenAiUserAbortError();
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  let text: string;
  try {
    response = await fetcher(url, { ...init, signal: combined });
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw new OpenAiUserAbortError();
    if (timeout.aborted) return { error: new OpenAiConnectionTimeoutError(), retry: true };
    return { error: new OpenAiConnectionError(undefined, { cause: error }), retry: true };
  }
  if (response.ok) return { value: JSON.parse(text) };
  const body = parseJson(text);
  const error = new OpenAiApiError(response.status, body ?? (text || undefined), response.headers);
  return { error, retry: shouldRetry(response), headers: response.headers };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The SDK's rule: the server's `x-should-retry` if given, else 408, 409, 429 and 5xx. */
function shouldRetry(response: Response): boolean {
  const told = response.headers.get("x-should-retry");
  if (told === "true") return true;
  if (told === "false") return false;
  const status = response.status;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The server's `retry-after-ms` or `retry-after` (under a minute), else the SDK's backoff. */
function retryDelayMs(headers: Headers | undefined, retriesDone: number): number {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  let wait = Number.isNaN(ms) ? undefined : ms;
  const after = headers?.get("retry-after");
  if (wait === undefined && after) {
    const seconds = Number.parseFloat(after);
    wait = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  if (wait !== undefined && wait >= 0 && wait < 60_000) return wait;
  const backoff = Math.min(0.5 * 2 ** retriesDone, 8);
  return backoff * (1 - Math.random() * 0.25) * 1000;
}

/** Waits `ms`, or until `signal` aborts (then the call ends as the caller's abort). */
async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  await sleepUnlessAborted(ms, signal).catch(() => {
    throw new OpenAiUserAbortError();
  });
}
