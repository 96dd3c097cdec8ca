/**
 * jose's verification errors as our 401 codes, each with a message that says
 * what was wrong with the token and what to send instead.
 */
import { decodeProtectedHeader, errors } from "jose";
import { AppError, isAppError } from "../errors.ts";

/** The AppError for a failed `jwtVerify`; anything unexpected is rethrown as is. */
export function tokenError(
  error: unknown,
  { token, algorithms }: { token: string; algorithms: readonly string[] },
): unknown {
  if (isAppError(error)) return error;
  if (error instanceof errors.JWTExpired) {
    const exp = Number(error.payload.exp);
    const when = Number.isFinite(exp) ? ` at ${new Date(exp * 1000).toISOString()}` : "";
    return new AppError(
      "TOKEN_EXPIRED",
      `The JWT expired${when}; refresh the session and send its new access token`,
      { cause: error },
    );
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") {
      return new AppError(
        "TOKEN_AUDIENCE_INVALID",
        `The JWT's audience is wrong: ${error.reason}`,
        {
          cause: error,
        },
      );
    }
    return new AppError(
      "TOKEN_CLAIMS_INVALID",
      `The JWT was refused: ${error.message}; send a current access token from this project`,
      { cause: error },
    );
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return algorithmRefused(token, algorithms, error);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new AppError(
      "TOKEN_SIGNATURE_INVALID",
      "The JWT's signature does not match this project's signing keys; send a token issued by this project's Supabase Auth",
      { cause: error },
    );
  }
  if (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return new AppError(
      "TOKEN_SIGNATURE_INVALID",
      `The JWT is signed with a key (kid ${
        JSON.stringify(headerOf(token)?.kid ?? null)
      }) that is not one of this project's signing keys; send a token issued by this project's Supabase Auth`,
      { cause: error },
    );
  }
  if (error instanceof errors.JWKInvalid || error instanceof errors.JWKSInvalid) {
    return new AppError(
      "AUTH_KEYS_UNAVAILABLE",
      "Cannot verify the JWT: a configured signing key is unusable; check SUPABASE_JWKS",
      { cause: error },
    );
  }
  if (error instanceof errors.JOSEError) {
    return new AppError(
      "TOKEN_MALFORMED",
      `The bearer token is not a well-formed JWT (${error.message}); send the access token of a Supabase session`,
      { cause: error },
    );
  }
  return error;
}

function algorithmRefused(
  token: string,
  algorithms: readonly string[],
  cause: unknown,
): AppError {
  const alg = headerOf(token)?.alg;
  const accepted = algorithms.length > 0 ? algorithms.join(", ") : "none configured";
  const message = alg === "none"
    ? "The JWT is unsigned (alg none); send a signed access token"
    : `The JWT is signed with ${
      JSON.stringify(alg ?? null)
    }, which this server has no key for (accepted: ${accepted})`;
  return new AppError("TOKEN_ALGORITHM_REFUSED", message, { cause });
}

/** The token's header, read only to explain a refusal (never to trust it). */
function headerOf(token: string): { alg?: string; kid?: string } | undefined {
  try {
    return decodeProtectedHeader(token);
  } catch {
    return undefined;
  }
}
