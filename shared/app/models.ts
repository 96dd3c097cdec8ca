/**
 * Chooses the embedder, chat model and planner from the configuration. The
 * OpenAI SDK is imported on first use, so paths that need no model (health,
 * MCP) and offline set-ups never load it. Chat and embeddings may use two
 * servers (a chat-only provider such as Groq, embeddings from OpenAI).
 */
import type { ModelConfig, OpenAiConnection } from "../config/model_config.ts";
import { HashingEmbedder } from "../adapters/hashing/hashing_embedder.ts";
import { GteSmallEmbedder } from "../adapters/supabase/gte_small_embedder.ts";
import { ChatPlanner } from "../planner/chat_planner.ts";
import { HeuristicPlanner } from "../planner/heuristic_planner.ts";
import type { ChatModel, Embedder, Planner } from "../ports.ts";

/** The models of an app. */
export interface Models {
  embedder: Embedder;
  /** Set when a chat model is configured (planning and summaries use it). */
  chatModel?: ChatModel;
  planner: Planner;
}

type LazyClient = () => Promise<import("../adapters/openai/openai_client.ts").OpenAiClient>;

/** Builds the configured models. */
export function createModels(config: ModelConfig): Models {
  const client = config.openai ? lazyOpenAi(config.openai) : undefined;
  let chat: ChatModel | undefined;
  const chatModel: ChatModel | undefined = client
    ? {
      model: config.chat.model,
      complete: async (request) => {
        const { OpenAiChatModel } = await import("../adapters/openai/openai_chat_model.ts");
        chat ??= new OpenAiChatModel(await client(), {
          ...config.chat,
          reasoningEffort: config.reasoning.effort,
          reasoningTokens: config.reasoning.tokens,
        });
        return chat.complete(request);
      },
    }
    : undefined;
  const embeddingClient = config.embeddings === undefined
    ? undefined
    : sameConnection(config.embeddings, config.openai)
    ? client
    : lazyOpenAi(config.embeddings);
  const embedder = createEmbedder(config, embeddingClient);
  const planner = config.planner === "chat" && chatModel
    ? new ChatPlanner(chatModel, { contextTokens: config.promptContextTokens })
    : new HeuristicPlanner();
  return { embedder, chatModel, planner };
}

function createEmbedder(config: ModelConfig, client?: LazyClient): Embedder {
  if (config.embedder === "gte-small") return new GteSmallEmbedder();
  // Loads its module and npm packages on the first embed, so choosing it costs nothing until then.
  if (config.embedder === "sentence") return lazySentenceEmbedder();
  if (config.embedder !== "openai" || !client) return new HashingEmbedder();
  let embedder: Embedder | undefined;
  return {
    model: config.embeddingModel,
    dimensions: config.embeddingDimensions ?? 1536,
    embed: async (texts, options) => {
      const { OpenAiEmbedder } = await import("../adapters/openai/openai_embedder.ts");
      embedder ??= new OpenAiEmbedder(await client(), {
        model: config.embeddingModel,
        dimensions: config.embeddingDimensions,
        maxInputTokens: config.embeddingMaxTokens,
      });
      return embedder.embed(texts, options);
    },
  };
}

function sameConnection(a: OpenAiConnection, b: OpenAiConnection | undefined): boolean {
  return b !== undefined && a.baseUrl === b.baseUrl && a.apiKey === b.apiKey;
}

function lazyOpenAi(options: OpenAiConnection): LazyClient {
  let client: Promise<import("../adapters/openai/openai_client.ts").OpenAiClient> | undefined;
  return () =>
    client ??= import("../adapters/openai/openai_client.ts").then(({ createOpenAiClient }) =>
      createOpenAiClient(options)
    );
}

/** What is used of the sentence embedder's module (shared/adapters/sentence/sentence_embedder.ts). */
interface SentenceEmbedderModule {
  SentenceEmbedder: new () => Embedder;
}

/**
 * The sentence embedder with its defaults (its model name and length are
 * those of `new SentenceEmbedder()`, checked by tests/adapters/sentence_embedder_test.ts),
 * its module loaded on the first embed by a specifier held in a variable: it
 * runs only locally (the configuration refuses it on the edge), so, like the
 * PGlite adapter (storage.ts), it stays out of the deployed function.
 */
export function lazySentenceEmbedder(): Embedder {
  let loaded: Promise<Embedder> | undefined;
  const load = async () => {
    const specifier: string = import.meta.resolve("../adapters/sentence/sentence_embedder.ts");
    const { SentenceEmbedder } = await import(specifier) as SentenceEmbedderModule;
    return new SentenceEmbedder();
  };
  return {
    model: "use-lite-hashing-v1",
    dimensions: 1536,
    embed: async (texts, options) => {
      // A failed load is tried again on the next embed.
      loaded ??= load().catch((error) => {
        loaded = undefined;
        throw error;
      });
      return (await loaded).embed(texts, options);
    },
  };
}
