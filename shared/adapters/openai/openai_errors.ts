/**
 * Maps OpenAI SDK failures to the project's errors with messages that say what
 * failed and never carry the API key.
 */
import OpenAI from "openai";
import { AppError } from "../../errors.ts";
import { redactKeyShapes } from "../../log/redact.ts";

/** The error for a failed model call; `what` names the call ("embed", "plan"). */
export function modelError(error: unknown, { what, model, baseUrl }: {
  what: string;
  model: string;
  baseUrl: string;
}): unknown {
  // An abort is the caller's deadline or timeout: let the caller's signal reason decide.
  if (error instanceof OpenAI.APIUserAbortError) return error;
  if (error instanceof AppError) return error;
  const where = `model "${model}" at ${baseUrl}`;
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new AppError(
      "MODEL_UNAVAILABLE",
      `Could not ${what}: ${where} did not answer in time; try again`,
    );
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new AppError(
      "MODEL_UNAVAILABLE",
      `Could not ${what}: ${where} is unreachable; check OPENAI_BASE_URL and the network`,
    );
  }
  if (error instanceof OpenAI.APIError) {
    const hint = error.status === 401
      ? "check OPENAI_API_KEY"
      : error.status === 404
      ? "check the model name"
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
