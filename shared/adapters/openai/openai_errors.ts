/**
 * Maps the OpenAI client's failures to the project's errors with messages that
 * say what failed and never carry the API key.
 */
import { AppError } from "../../errors.ts";
import { redactKeyShapes } from "../../log/redact.ts";
import {
  OpenAiApiError,
  OpenAiConnectionError,
  OpenAiConnectionTimeoutError,
  OpenAiUserAbortError,
} from "./openai_client.ts";

/**
 * The error for a failed model call; `what` names the call ("embed", "plan"),
 * `settings` the variables of its connection (for the hints).
 */
export function modelError(error: unknown, { what, model, baseUrl, settings = CHAT_SETTINGS }: {
  what: string;
  model: string;
  baseUrl: string;
  settings?: ConnectionSettings;
}): unknown {
  // An abort is the caller's deadline or timeout: let the caller's signal reason decide.
  if (error instanceof OpenAiUserAbortError) return error;
  if (error instanceof AppError) return error;
  const where = `model "${model}" at ${baseUrl}`;
  if (error instanceof OpenAiConnectionTimeoutError) {
    return new AppError(
      "MODEL_UNAVAILABLE",
      `Could not ${what}: ${where} did not answer in time; try again`,
    );
  }
  if (error instanceof OpenAiConnectionError) {
    return new AppError(
      "MODEL_UNAVAILABLE",
      `Could not ${what}: ${where} is unreachable; check ${settings.baseUrl} and the network`,
    );
  }
  if (error instanceof OpenAiApiError) {
    const hint = error.status === 401
      ? `check ${settings.apiKey}`
      : error.status === 404
      ? settings.notFound
      : error.status === 429
      ? "the rate limit was hit; retry later"
      : "try again";
    return new AppError(
      "MODEL_UNAVAILABLE",
      `Could not ${what}: ${where} answered ${error.status ?? "an error"}: ${
        redactKeyShapes(error.message).slice(0, 300)
      }; ${hint}`,
      { details: { status: error.status } },
    );
  }
  return new AppError("MODEL_UNAVAILABLE", `Could not ${what}: ${where} failed unexpectedly`);
}

/** The variables behind a connection, named in hints. */
export interface ConnectionSettings {
  apiKey: string;
  baseUrl: string;
  /** What to check on a 404. */
  notFound: string;
}

/** The chat connection's variables. */
export const CHAT_SETTINGS: ConnectionSettings = {
  apiKey: "OPENAI_API_KEY",
  baseUrl: "OPENAI_BASE_URL",
  notFound: "check the model name",
};

/** The embeddings connection's variables (they fall back to the chat connection's). */
export const EMBEDDING_SETTINGS: ConnectionSettings = {
  apiKey: "MCP_LOOP_EMBEDDING_API_KEY (or OPENAI_API_KEY)",
  baseUrl: "MCP_LOOP_EMBEDDING_BASE_URL (or OPENAI_BASE_URL)",
  notFound:
    "check the model name; a server without an embeddings endpoint needs MCP_LOOP_EMBEDDING_BASE_URL set to one that has it, or MCP_LOOP_EMBEDDER=gte-small or hashing",
};
