/** Builds the OpenAI SDK client from the configuration. */
import OpenAI from "openai";

/** Connection settings. */
export interface OpenAiClientOptions {
  apiKey?: string;
  /** Any OpenAI-compatible server (Ollama, vLLM, LiteLLM, gateways). */
  baseUrl?: string;
  /** Per-attempt timeout; the request deadline also aborts calls. */
  timeoutMs?: number;
  /** Retries with backoff on 408/409/429/5xx and connection errors (the SDK's own). */
  maxRetries?: number;
}

/** The client. Local servers often need no key; the SDK insists on one, so a placeholder is sent. */
export function createOpenAiClient(
  { apiKey, baseUrl, timeoutMs = 30_000, maxRetries = 2 }: OpenAiClientOptions,
): OpenAI {
  return new OpenAI({
    apiKey: apiKey ?? "not-needed",
    baseURL: baseUrl,
    timeout: timeoutMs,
    maxRetries,
  });
}
