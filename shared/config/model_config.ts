/** Which embedder, planner and chat model to use, and their settings. */
import type { ConfigOptions } from "./config_options.ts";
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
  /** `sentence`: the Universal Sentence Encoder with hashed features, local runs only. */
  embedder: "hashing" | "openai" | "gte-small" | "sentence";
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

/**
 * Which embedder, planner and chat model (environment: keys, URLs, models),
 * and how they are called (options `models.*`). With nothing chosen, the
 * embedder is OpenAI's when a key is set, else Supabase's `gte-small` on the
 * edge runtime (it runs in the isolate), else the offline hashing embedder.
 */
export function readModels(
  reader: EnvReader,
  { options = {}, edge }: { options?: ConfigOptions["models"]; edge: boolean },
): ModelConfig {
  const apiKey = reader.string("OPENAI_API_KEY");
  const baseUrl = reader.string("OPENAI_BASE_URL");
  const limits = {
    timeoutMs: reader.option("models.timeoutMs", options.timeoutMs, {
      fallback: 30_000,
      min: 100,
      max: 600_000,
      integer: true,
    }),
    maxRetries: reader.option("models.maxRetries", options.maxRetries, {
      fallback: 2,
      min: 0,
      max: 10,
      integer: true,
    }),
  };
  const openai = apiKey || baseUrl ? { apiKey, baseUrl, ...limits } : undefined;
  const embeddings = readEmbeddingConnection(reader, { apiKey, baseUrl }, limits);
  const { embedder, planner } = chooseModels(reader, { openai, embeddings, edge });
  const option = (name: keyof NonNullable<ConfigOptions["models"]>, range: Range) =>
    reader.option(`models.${name}`, options[name] as number | undefined, range);
  return {
    openai,
    embedder,
    embeddingModel: reader.string("MCP_LOOP_EMBEDDING_MODEL") ?? "text-embedding-3-small",
    embeddingDimensions: options.embeddingDimensions === undefined
      ? undefined
      : option("embeddingDimensions", { fallback: 1536, min: 1, max: 1536, integer: true }),
    embeddingMaxTokens: options.embeddingMaxTokens === undefined
      ? undefined
      : option("embeddingMaxTokens", { fallback: 8_192, min: 16, max: 1_000_000, integer: true }),
    embeddings,
    planner,
    chat: {
      model: reader.string("MCP_LOOP_CHAT_MODEL") ?? "gpt-4o",
      temperature: option("chatTemperature", { fallback: 0.3, min: 0, max: 2 }),
      maxTokens: option("chatMaxTokens", { fallback: 1_000, min: 16, max: 32_000, integer: true }),
      responseFormat: options.responseFormat ?? "json_schema",
    },
    reasoning: {
      effort: options.reasoningEffort ?? "low",
      tokens: option("reasoningTokens", { fallback: 4_000, min: 0, max: 100_000, integer: true }),
    },
    promptContextTokens: option("promptContextTokens", {
      fallback: 2_000,
      min: 100,
      max: 100_000,
      integer: true,
    }),
  };
}

type Range = { fallback: number; min: number; max: number; integer?: boolean };

/** `MCP_LOOP_EMBEDDER` and `MCP_LOOP_PLANNER`, `auto` resolved, with what each choice needs. */
function chooseModels(
  reader: EnvReader,
  { openai, embeddings, edge }: {
    openai?: OpenAiConnection;
    embeddings?: OpenAiConnection;
    edge: boolean;
  },
): Pick<ModelConfig, "embedder" | "planner"> {
  const embedderChoice = reader.oneOf("MCP_LOOP_EMBEDDER", [
    "auto",
    "openai",
    "hashing",
    "gte-small",
    "sentence",
  ], "auto");
  const plannerChoice = reader.oneOf("MCP_LOOP_PLANNER", ["auto", "chat", "heuristic"], "auto");
  const embedder = embedderChoice !== "auto"
    ? embedderChoice
    : embeddings
    ? "openai"
    : edge
    ? "gte-small"
    : "hashing";
  const planner = plannerChoice === "auto" ? (openai ? "chat" : "heuristic") : plannerChoice;
  if (embedder === "openai" && !embeddings) {
    reader.problem(
      "MCP_LOOP_EMBEDDER=openai needs OPENAI_API_KEY or MCP_LOOP_EMBEDDING_API_KEY (or a base URL for a local server)",
    );
  }
  if (embedder === "sentence" && edge) {
    reader.problem(
      "MCP_LOOP_EMBEDDER=sentence runs only locally (deno task start): the sentence encoder needs 150–300 MB of the edge runtime's 256 MB and reads its model from Deno's npm cache; on the edge use gte-small (the default there) or openai",
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
  return { embedder, planner };
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
