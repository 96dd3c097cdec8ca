/** Which embedder, planner and chat model to use, and their settings. */
import type { EnvReader } from "./env_reader.ts";

/** How to reach an OpenAI-compatible server. */
export interface OpenAiConnection {
  apiKey?: string;
  baseUrl?: string;
  timeoutMs: number;
  maxRetries: number;
}

/** `reasoning_effort` values; `default` sends none. */
export const REASONING_EFFORTS = [
  "default",
  "none",
  "minimal",
  "low",
  "medium",
  "high",
  "xhigh",
  "max",
] as const;

/** Which embedder, planner and chat model to use. */
export interface ModelConfig {
  /** The chat connection: set when OPENAI_API_KEY or OPENAI_BASE_URL is. */
  openai?: OpenAiConnection;
  /**
   * The embeddings connection: MCP_LOOP_EMBEDDING_BASE_URL and
   * MCP_LOOP_EMBEDDING_API_KEY, else the chat connection's.
   */
  embeddings?: OpenAiConnection;
  embedder: "hashing" | "openai" | "gte-small";
  embeddingModel: string;
  /** Ask the embedding model for this many dimensions (text-embedding-3 models support it). */
  embeddingDimensions?: number;
  /** Cut each embedding input to this many tokens (default: 8,192 for OpenAI's models). */
  embeddingMaxTokens?: number;
  planner: "heuristic" | "chat";
  chat: {
    model: string;
    temperature: number;
    maxTokens: number;
    responseFormat: "json_schema" | "json_object" | "none";
  };
  /** For reasoning models (o-series, gpt-5 family): effort, and tokens allowed for reasoning. */
  reasoning: { effort: (typeof REASONING_EFFORTS)[number]; tokens: number };
  /** Token budget of the context in the planner prompt. */
  promptContextTokens: number;
}

/** Which embedder, planner and chat model, and their settings. */
export function readModels(reader: EnvReader): ModelConfig {
  const apiKey = reader.string("OPENAI_API_KEY");
  const baseUrl = reader.string("OPENAI_BASE_URL");
  const limits = {
    timeoutMs: reader.int("MCP_LOOP_MODEL_TIMEOUT_MS", {
      fallback: 30_000,
      min: 100,
      max: 600_000,
    }),
    maxRetries: reader.int("MCP_LOOP_MODEL_MAX_RETRIES", { fallback: 2, min: 0, max: 10 }),
  };
  const openai = apiKey || baseUrl ? { apiKey, baseUrl, ...limits } : undefined;
  const embeddings = readEmbeddingConnection(reader, { apiKey, baseUrl }, limits);
  const embedderChoice = reader.oneOf("MCP_LOOP_EMBEDDER", [
    "auto",
    "openai",
    "hashing",
    "gte-small",
  ], "auto");
  const plannerChoice = reader.oneOf("MCP_LOOP_PLANNER", ["auto", "chat", "heuristic"], "auto");
  const embedder = embedderChoice === "auto" ? (embeddings ? "openai" : "hashing") : embedderChoice;
  const planner = plannerChoice === "auto" ? (openai ? "chat" : "heuristic") : plannerChoice;
  if (embedder === "openai" && !embeddings) {
    reader.problem(
      "MCP_LOOP_EMBEDDER=openai needs OPENAI_API_KEY or MCP_LOOP_EMBEDDING_API_KEY (or a base URL for a local server)",
    );
  }
  if (planner === "chat" && !openai) {
    reader.problem(
      "MCP_LOOP_PLANNER=chat needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)",
    );
  }
  if (embedder === "openai" && lacksEmbeddings(embeddings?.baseUrl)) {
    reader.problem(
      `${embeddings?.baseUrl} has no embeddings endpoint: set MCP_LOOP_EMBEDDING_BASE_URL (and MCP_LOOP_EMBEDDING_API_KEY) to a server that has one, or MCP_LOOP_EMBEDDER=gte-small or hashing`,
    );
  }
  const dimensions = reader.string("MCP_LOOP_EMBEDDING_DIMENSIONS") === undefined
    ? undefined
    : reader.int("MCP_LOOP_EMBEDDING_DIMENSIONS", { fallback: 1536, min: 1, max: 1536 });
  return {
    openai,
    embedder,
    embeddingModel: reader.string("MCP_LOOP_EMBEDDING_MODEL") ?? "text-embedding-3-small",
    embeddingDimensions: dimensions,
    embeddingMaxTokens: reader.string("MCP_LOOP_EMBEDDING_MAX_TOKENS") === undefined
      ? undefined
      : reader.int("MCP_LOOP_EMBEDDING_MAX_TOKENS", { fallback: 8_192, min: 16, max: 1_000_000 }),
    embeddings,
    planner,
    chat: {
      model: reader.string("MCP_LOOP_CHAT_MODEL") ?? "gpt-4o",
      temperature: reader.number("MCP_LOOP_CHAT_TEMPERATURE", { fallback: 0.3, min: 0, max: 2 }),
      maxTokens: reader.int("MCP_LOOP_CHAT_MAX_TOKENS", { fallback: 1_000, min: 16, max: 32_000 }),
      responseFormat: reader.oneOf(
        "MCP_LOOP_RESPONSE_FORMAT",
        ["json_schema", "json_object", "none"],
        "json_schema",
      ),
    },
    reasoning: {
      effort: reader.oneOf("MCP_LOOP_REASONING_EFFORT", REASONING_EFFORTS, "low"),
      tokens: reader.int("MCP_LOOP_REASONING_TOKENS", { fallback: 4_000, min: 0, max: 100_000 }),
    },
    promptContextTokens: reader.int("MCP_LOOP_PROMPT_CONTEXT_TOKENS", {
      fallback: 2_000,
      min: 100,
      max: 100_000,
    }),
  };
}

/**
 * The embeddings connection: its own base URL and key where set. The chat
 * key is reused only for the chat server itself, so it never goes to another
 * host.
 */
function readEmbeddingConnection(
  reader: EnvReader,
  chat: { apiKey?: string; baseUrl?: string },
  limits: { timeoutMs: number; maxRetries: number },
): OpenAiConnection | undefined {
  const ownUrl = reader.string("MCP_LOOP_EMBEDDING_BASE_URL");
  const baseUrl = ownUrl ?? chat.baseUrl;
  const sameServer = ownUrl === undefined || ownUrl === chat.baseUrl;
  const apiKey = reader.string("MCP_LOOP_EMBEDDING_API_KEY") ??
    (sameServer ? chat.apiKey : undefined);
  return apiKey || baseUrl ? { apiKey, baseUrl, ...limits } : undefined;
}

/** OpenAI-compatible APIs known to have no embeddings endpoint. */
const NO_EMBEDDINGS = ["api.groq.com", "api.anthropic.com"];

/** Does the server at `baseUrl` lack an embeddings endpoint (as far as we know)? */
function lacksEmbeddings(baseUrl: string | undefined): boolean {
  if (baseUrl === undefined) return false;
  try {
    return NO_EMBEDDINGS.includes(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}
