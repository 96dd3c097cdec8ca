/**
 * jose's verification errors as our 401 codes, each with a message that says
 * what was wrong with the token and what to send instead.
 */
import { decodeProtectedHeader, errors } from "jose";
import { AppError, isAppError } from "../errors.ts";

/** What a refusal's message may quote: the token (its header only) and the algorithms accepted. */
type Refused = { token: string; algorithms: readonly string[] };

/** A rule: an error of one of `classes` becomes the AppError `toError` makes of it. */
function when<E extends Error>(
  classes: ReadonlyArray<abstract new (...args: never[]) => E>,
  toError: (error: E, refused: Refused) => AppError,
): (error: unknown, refused: Refused) => AppError | undefined {
  return (error, refused) =>
    classes.some((kind) => error instanceof kind) ? toError(error as E, refused) : undefined;
}

/**
 * jose's errors, most specific first (an expired token's error is a failed
 * claim, and every one of them is a JOSEError), each with our error for it.
 */
const RULES = [
  when([errors.JWTExpired], (error) => {
    const exp = Number(error.payload.exp);
    const at = Number.isFinite(exp) ? ` at ${new Date(exp * 1000).toISOString()}` : "";
    return new AppError(
      "TOKEN_EXPIRED",
      `The JWT expired${at}; refresh the session and send its new access token`,
      { cause: error },
    );
  }),
  when([errors.JWTClaimValidationFailed], (error) => {
    if (error.claim === "aud") {
      const message = `The JWT's audience is wrong: ${error.reason}`;
      return new AppError("TOKEN_AUDIENCE_INVALID", message, { cause: error });
    }
    return new AppError(
      "TOKEN_CLAIMS_INVALID",
      `The JWT was refused: ${error.message}; send a current access token from this project`,
      { cause: error },
    );
  }),
  when(
    [errors.JOSEAlgNotAllowed, errors.JOSENotSupported],
    (error, { token, algorithms }) => algorithmRefused(token, algorithms, error),
  ),
  when([errors.JWSSignatureVerificationFailed], (error) =>
    new AppError(
      "TOKEN_SIGNATURE_INVALID",
      "The JWT's signature does not match this project's signing keys; send a token issued by this project's Supabase Auth",
      { cause: error },
    )),
  when(
    [errors.JWKSNoMatchingKey, errors.JWKSMultipleMatchingKeys],
    (error, { token }) =>
      new AppError(
        "TOKEN_SIGNATURE_INVALID",
        `The JWT is signed with a key (kid ${
          JSON.stringify(headerOf(token)?.kid ?? null)
        }) that is not one of this project's signing keys; send a token issued by this project's Supabase Auth`,
        { cause: error },
      ),
  ),
  when([errors.JWKInvalid, errors.JWKSInvalid], (error) =>
    new AppError(
      "AUTH_KEYS_UNAVAILABLE",
      "Cannot verify the JWT: a configured signing key is unusable; check SUPABASE_JWKS",
      { cause: error },
    )),
  when([errors.JOSEError], (error) =>
    new AppError(
      "TOKEN_MALFORMED",
      `The bearer token is not a well-formed JWT (${error.message}); send the access token of a Supabase session`,
      { cause: error },
    )),
];

/** The AppError for a failed `jwtVerify`; anything unexpected is rethrown as is. */
export function tokenError(
  error: unknown,
  { token, algorithms }: { token: string; algorithms: readonly string[] },
): unknown {
  if (isAppError(error)) return error;
  for (const rule of RULES) {
    const mapped = rule(error, { token, algorithms });
    if (mapped) return mapped;
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
