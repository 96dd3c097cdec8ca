/**
 * Verifies Supabase JWTs with jose: HS256 only with the legacy secret;
 * ES256, RS256 and EdDSA only with the project's signing keys — the static
 * `SUPABASE_JWKS` first, then the project's JWKS endpoint (fetched on the first
 * such token, cached, refetched when an unknown key id shows up). A token is
 * never trusted without its signature being checked.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors,
  type JSONWebKeySet,
  jwtVerify,
  type JWTVerifyGetKey,
} from "jose";
import { AppError, describeError } from "../errors.ts";
import { tokenError } from "./token_errors.ts";

/** Where the keys that sign JWTs come from, and what a token must claim. */
export interface JwtVerifierOptions {
  /** Legacy Supabase JWT secret (HS256). */
  jwtSecret?: string;
  /** Public signing keys known in advance (`SUPABASE_JWKS`). */
  jwks?: JsonWebKey[];
  /** The project's JWKS endpoint, consulted for keys not in `jwks`. */
  jwksUrl?: string;
  /** What a user token's `aud` must contain. */
  audience?: string;
  /** What every token's `iss` must be, when set. */
  issuer?: string;
  /** The fetch used for the JWKS endpoint (tests pass a fake). */
  fetch?: typeof fetch;
  /** How long fetched keys are used before they are fetched again. */
  jwksCacheMaxAgeMs?: number;
  /** How soon after a fetch an unknown key id may trigger another one. */
  jwksCooldownMs?: number;
}

/** Checks a JWT's signature and claims. */
export interface JwtVerifier {
  /** Whether any key is configured (else no JWT can be verified). */
  readonly configured: boolean;
  /** The verified claims; throws an AppError with a TOKEN_* code (or AUTH_KEYS_UNAVAILABLE). */
  verify(token: string): Promise<Record<string, unknown>>;
}

/** Asymmetric algorithms Supabase signing keys use. */
export const ASYMMETRIC_ALGORITHMS = ["ES256", "RS256", "EdDSA"] as const;

/** Builds the verifier; nothing is fetched until a token needs the JWKS endpoint. */
export function createJwtVerifier(
  {
    jwtSecret,
    jwks = [],
    jwksUrl,
    audience = "authenticated",
    issuer,
    fetch: fetchImpl,
    jwksCacheMaxAgeMs = 600_000,
    jwksCooldownMs = 30_000,
  }: JwtVerifierOptions = {},
): JwtVerifier {
  const secret = jwtSecret ? new TextEncoder().encode(jwtSecret) : undefined;
  const local = jwks.length > 0 ? createLocalJWKSet({ keys: jwks } as JSONWebKeySet) : undefined;
  const remote = jwksUrl
    ? remoteKeys(jwksUrl, {
      cacheMaxAge: jwksCacheMaxAgeMs,
      cooldownDuration: jwksCooldownMs,
      timeoutDuration: 5_000,
      ...(fetchImpl ? { [customFetch]: fetchImpl } : {}),
    })
    : undefined;
  const algorithms = [
    ...(secret ? ["HS256"] : []),
    ...(local || remote ? ASYMMETRIC_ALGORITHMS : []),
  ];
  const getKey = keyFor({ secret, local, remote });
  return {
    configured: algorithms.length > 0,
    async verify(token) {
      let claims: Record<string, unknown>;
      try {
        ({ payload: claims } = await jwtVerify(token, getKey, {
          algorithms,
          requiredClaims: ["exp"],
          clockTolerance: 5,
          ...(issuer ? { issuer } : {}),
        }));
      } catch (error) {
        throw tokenError(error, { token, algorithms });
      }
      checkAudience(claims, audience);
      return claims;
    },
  };
}

/**
 * The key for a token's header: the secret for HS256, else the static keys,
 * else — for a key id they do not have — the JWKS endpoint's.
 */
function keyFor(
  { secret, local, remote }: {
    secret?: Uint8Array;
    local?: JWTVerifyGetKey;
    remote?: JWTVerifyGetKey;
  },
): JWTVerifyGetKey {
  return async (header, token) => {
    // The algorithm allow-list has already refused what no configured key can verify.
    if (header.alg === "HS256") return secret!;
    if (local) {
      try {
        return await local(header, token);
      } catch (error) {
        if (!remote || !(error instanceof errors.JWKSNoMatchingKey)) throw error;
      }
    }
    return await remote!(header, token);
  };
}

/**
 * The project's JWKS endpoint; an endpoint that cannot be loaded is
 * AUTH_KEYS_UNAVAILABLE, while a key id it lacks stays jose's error (a bad token).
 */
function remoteKeys(
  jwksUrl: string,
  options: Parameters<typeof createRemoteJWKSet>[1],
): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(new URL(jwksUrl), options);
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      if (
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys
      ) throw error;
      throw new AppError(
        "AUTH_KEYS_UNAVAILABLE",
        `Cannot verify the JWT: the signing keys at ${jwksUrl} could not be loaded (${
          describeError(error)
        }); try again shortly, and check SUPABASE_URL or MCP_LOOP_JWKS_URL if it persists`,
        { cause: error },
      );
    }
  };
}

/**
 * A user token (any role but the project keys' `anon` and `service_role`,
 * custom roles included) must name `audience` in `aud`; a project key that
 * carries an `aud` must name it too. The legacy anon and service_role JWTs
 * carry none.
 */
function checkAudience(claims: Record<string, unknown>, audience: string): void {
  const { aud } = claims;
  if (aud === undefined && (claims.role === "anon" || claims.role === "service_role")) return;
  const audiences = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
  if (audiences.includes(audience)) return;
  throw new AppError(
    "TOKEN_AUDIENCE_INVALID",
    `The JWT is meant for ${
      aud === undefined ? "no audience" : `audience ${JSON.stringify(aud)}`
    }, not "${audience}"; send a user access token issued by this project's Supabase Auth (or set the option auth.jwtAudience)`,
  );
}
