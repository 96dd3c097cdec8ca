/**
 * The one place that turns results and errors into HTTP responses, so every
 * error body has the same shape: `{success:false, error:{code, message, details?}}`.
 */
import { bearerChallenge } from "../auth/bearer_challenge.ts";
import type { ErrorBody } from "../contracts.ts";
import { type AppError, HTTP_STATUS, toAppError } from "../errors.ts";
import type { Logger } from "../ports.ts";

/** A JSON response; values JSON cannot hold (bigint) are written as strings. */
export function jsonResponse(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch {
    text = JSON.stringify(
      body,
      (_key, value) => typeof value === "bigint" ? value.toString() : value,
    );
  }
  return new Response(text, {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/**
 * The error body for anything thrown, `{success:false, error:{code, message, details?}}`,
 * and its status. Our errors keep their status and message; anything else is a
 * 500 with a generic message. Server faults are logged (with their cause,
 * which is never sent).
 */
export function errorBody(
  error: unknown,
  { logger, requestId }: { logger: Logger; requestId?: string },
): { status: number; error: AppError; body: ErrorBody } {
  const appError = toAppError(error);
  const status = HTTP_STATUS[appError.code];
  if (status >= 500) {
    logger.error("request failed", {
      requestId,
      code: appError.code,
      message: appError.message,
      cause: describeCause(appError.cause),
    });
  }
  const body: ErrorBody = {
    success: false,
    error: {
      code: appError.code,
      message: appError.message,
      ...(appError.details === undefined ? {} : { details: appError.details }),
    },
  };
  return { status, error: appError, body };
}

/** The error response for anything thrown (see {@link errorBody}); a 401 carries a `WWW-Authenticate: Bearer` challenge. */
export function errorResponse(
  error: unknown,
  { logger, requestId, headers = {} }: {
    logger: Logger;
    requestId?: string;
    headers?: HeadersInit;
  },
): Response {
  const { status, error: appError, body } = errorBody(error, { logger, requestId });
  return jsonResponse(body, status, {
    ...(requestId ? { "x-request-id": requestId } : {}),
    // Every 401 says how to authenticate (RFC 6750); a 429 says when to come back.
    ...(status === 401 ? { "www-authenticate": bearerChallenge(appError) } : {}),
    ...(status === 429 ? { "retry-after": String(retryAfter(appError.details)) } : {}),
    ...Object.fromEntries(new Headers(headers)),
  });
}

function describeCause(cause: unknown): string | undefined {
  if (cause === undefined) return undefined;
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  return String(cause);
}

function retryAfter(details: unknown): number {
  const seconds = (details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof seconds === "number" && seconds > 0 ? Math.ceil(seconds) : 1;
}
