/** Which embedder, planner and chat model to use, and their settings. */
import type { EnvReader } from "./env_reader.ts";

/** Which embedder, planner and chat model to use. */
export interface ModelConfig {
  /** Set when OPENAI_API_KEY or OPENAI_BASE_URL is. */
  openai?: { apiKey?: string; baseUrl?: string; timeoutMs: number; maxRetries: number };
  embedder: "hashing" | "openai" | "gte-small";
  embeddingModel: string;
  /** Ask the embedding model for this many dimensions (text-embedding-3 models support it). */
  embeddingDimensions?: number;
  planner: "heuristic" | "chat";
  chat: {
    model: string;
    temperature: number;
    maxTokens: number;
    responseFormat: "json_schema" | "json_object" | "none";
  };
  /** Token budget of the context in the planner prompt. */
  promptContextTokens: number;
}

/** Which embedder, planner and chat model, and their settings. */
export function readModels(reader: EnvReader): ModelConfig {
  const apiKey = reader.string("OPENAI_API_KEY");
  const baseUrl = reader.string("OPENAI_BASE_URL");
  const openai = apiKey || baseUrl
    ? {
      apiKey,
      baseUrl,
      timeoutMs: reader.int("MCP_LOOP_MODEL_TIMEOUT_MS", {
        fallback: 30_000,
        min: 100,
        max: 600_000,
      }),
      maxRetries: reader.int("MCP_LOOP_MODEL_MAX_RETRIES", { fallback: 2, min: 0, max: 10 }),
    }
    : undefined;
  const embedderChoice = reader.oneOf("MCP_LOOP_EMBEDDER", [
    "auto",
    "openai",
    "hashing",
    "gte-small",
  ], "auto");
  const plannerChoice = reader.oneOf("MCP_LOOP_PLANNER", ["auto", "chat", "heuristic"], "auto");
  const embedder = embedderChoice === "auto" ? (openai ? "openai" : "hashing") : embedderChoice;
  const planner = plannerChoice === "auto" ? (openai ? "chat" : "heuristic") : plannerChoice;
  if (!openai && (embedder === "openai" || planner === "chat")) {
    reader.problem(
      `${
        embedder === "openai" ? "MCP_LOOP_EMBEDDER=openai" : "MCP_LOOP_PLANNER=chat"
      } needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)`,
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
    promptContextTokens: reader.int("MCP_LOOP_PROMPT_CONTEXT_TOKENS", {
      fallback: 2_000,
      min: 100,
      max: 100_000,
    }),
  };
}
