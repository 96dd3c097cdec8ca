/**
 * The request rules of OpenAI's embeddings endpoint, for the fake server,
 * from the OpenAPI spec (github.com/openai/openai-openapi `openapi.yaml` at
 * commit f85dbe223d40e1a31cba812ab2d755c7e98a92a3), `CreateEmbeddingRequest`:
 * `additionalProperties: false`; "The input must not exceed the max input
 * tokens for the model (8192 tokens for all embedding models), cannot be an
 * empty string, and any array must be 2048 dimensions or less"; "all
 * embedding models enforce a maximum of 300,000 tokens summed across all
 * inputs in a single request"; `dimensions` "only supported in
 * text-embedding-3 and later models". Tokens are counted with cl100k_base,
 * the tokenizer of every OpenAI embedding model. The error messages are the
 * API's as users report them ("Invalid 'input': maximum context length is
 * 8192 tokens."; "Requested N tokens, max 300000 tokens per request").
 */
import * as cl100k from "gpt-tokenizer/encoding/cl100k_base";
import { type ApiError, AS_TEXT, invalid, modelNotFound } from "./openai_api_rules.ts";

/** Every parameter of `CreateEmbeddingRequest` (which has `additionalProperties: false`). */
export const EMBEDDING_PARAMETERS = new Set([
  "input",
  "model",
  "encoding_format",
  "dimensions",
  "user",
]);

/** Per-input token limit of every embedding model. */
export const EMBEDDING_MAX_TOKENS = 8_192;
/** Most inputs in one embeddings request. */
export const EMBEDDING_MAX_INPUTS = 2_048;
/** Most tokens summed over one embeddings request's inputs. */
export const EMBEDDING_MAX_REQUEST_TOKENS = 300_000;

/** Native dimensions of OpenAI's embedding models. */
const EMBEDDING_MODELS: Record<string, { dimensions: number; shortens: boolean }> = {
  "text-embedding-3-small": { dimensions: 1536, shortens: true },
  "text-embedding-3-large": { dimensions: 3072, shortens: true },
  "text-embedding-ada-002": { dimensions: 1536, shortens: false },
};

/** Why the API would refuse this embeddings request, or undefined; and each input's tokens. */
export function embeddingRequestError(
  body: Record<string, unknown>,
): ApiError | { inputs: string[]; tokens: number[] } {
  const unknown = Object.keys(body).find((key) => !EMBEDDING_PARAMETERS.has(key));
  if (unknown) return invalid(`Unrecognized request argument supplied: ${unknown}`, null, null);
  if (typeof body.model !== "string") {
    return invalid("you must provide a model parameter", null, null);
  }
  const model = EMBEDDING_MODELS[body.model];
  if (!model) return modelNotFound(body.model);
  const inputs = typeof body.input === "string" ? [body.input] : body.input;
  if (
    !Array.isArray(inputs) || inputs.length === 0 ||
    inputs.some((input) => typeof input !== "string" || input === "")
  ) {
    return invalid(
      "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
      "input",
      null,
    );
  }
  if (inputs.length > EMBEDDING_MAX_INPUTS) {
    return invalid(
      `Invalid 'input': array too long. Expected an array with maximum length ${EMBEDDING_MAX_INPUTS}, but got an array with length ${inputs.length} instead.`,
      "input",
      "array_above_max_length",
    );
  }
  if (
    body.encoding_format !== undefined &&
    !["float", "base64"].includes(body.encoding_format as string)
  ) {
    return invalid(
      `Invalid value: '${
        String(body.encoding_format)
      }'. Supported values are: 'float' and 'base64'.`,
      "encoding_format",
      "invalid_value",
    );
  }
  if (body.dimensions !== undefined) {
    if (!model.shortens) {
      return invalid("This model does not support specifying dimensions.", null, null);
    }
    const d = body.dimensions;
    if (!Number.isInteger(d) || (d as number) < 1 || (d as number) > model.dimensions) {
      return invalid(
        `Invalid 'dimensions': expected an integer from 1 to ${model.dimensions}, got ${
          JSON.stringify(d)
        }.`,
        "dimensions",
        "invalid_value",
      );
    }
  }
  // Every embedding model counts with cl100k_base.
  const tokens = (inputs as string[]).map((input) => cl100k.countTokens(input, AS_TEXT));
  if (tokens.some((count) => count > EMBEDDING_MAX_TOKENS)) {
    return invalid(
      `Invalid 'input': maximum context length is ${EMBEDDING_MAX_TOKENS} tokens.`,
      null,
      null,
    );
  }
  const total = tokens.reduce((sum, count) => sum + count, 0);
  if (total > EMBEDDING_MAX_REQUEST_TOKENS) {
    return {
      status: 400,
      error: {
        message:
          `Requested ${total} tokens, max ${EMBEDDING_MAX_REQUEST_TOKENS} tokens per request`,
        type: "max_tokens_per_request",
        param: null,
        code: "max_tokens_per_request",
      },
    };
  }
  return { inputs: inputs as string[], tokens };
}

/** The dimensions an embeddings request gets. */
export function embeddingDimensions(body: Record<string, unknown>): number {
  return (body.dimensions as number | undefined) ??
    EMBEDDING_MODELS[body.model as string].dimensions;
}
