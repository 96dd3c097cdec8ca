/**
 * Who is calling: an API key (`MCP_LOOP_API_KEYS`), a Supabase JWT verified
 * with the project's JWKS (`SUPABASE_JWKS`) or its legacy HS256 secret, or
 * nobody (anonymous, unless authentication is required).
 */
import { verify, verifyWithJwks } from "hono/jwt";
import { AppError } from "../errors.ts";
import { ANONYMOUS, type Caller, type Logger, SILENT_LOGGER } from "../ports.ts";

/** Resolves the caller of a request; throws UNAUTHORIZED for a bad credential. */
export type Authenticate = (req: Request) => Promise<Caller>;

/** How callers are recognised. */
export interface AuthOptions {
  /** Legacy Supabase JWT secret (HS256). */
  jwtSecret?: string;
  /** Public keys (ES256/RS256) that sign Supabase JWTs. */
  jwks?: JsonWebKey[];
  /** API keys by name; the key is sent as `Authorization: Bearer <key>`. */
  apiKeys?: ReadonlyMap<string, string>;
  /** Refuse requests without a valid credential. */
  required?: boolean;
  logger?: Logger;
}

/** Builds the request authenticator. */
export function createAuthenticator(
  { jwtSecret, jwks, apiKeys = new Map(), required = false, logger = SILENT_LOGGER }: AuthOptions =
    {},
): Authenticate {
  const keyNamesByDigest = digestKeys(apiKeys);
  const canVerifyJwt = Boolean(jwtSecret) || (jwks?.length ?? 0) > 0;
  let warned = false;
  return async (req) => {
    const token = bearerToken(req.headers.get("authorization"));
    if (token === undefined) {
      if (required) {
        throw unauthorized("Send a credential: Authorization: Bearer <API key or Supabase JWT>");
      }
      return ANONYMOUS;
    }
    const keyName = (await keyNamesByDigest).get(await sha256Hex(token));
    if (keyName !== undefined) return { userId: null, owner: `key:${keyName}` };
    if (!looksLikeJwt(token)) {
      if (required || apiKeys.size > 0) {
        throw unauthorized("The bearer token is not a known API key or a JWT");
      }
      return ANONYMOUS;
    }
    if (!canVerifyJwt) {
      if (required) throw unauthorized("JWT verification is not configured on this server");
      if (!warned) {
        warned = true;
        logger.warn(
          "a JWT was sent but neither SUPABASE_JWKS nor SUPABASE_JWT_SECRET is set; treating callers as anonymous",
        );
      }
      return ANONYMOUS;
    }
    return callerFromClaims(await verifyJwt(token, { jwtSecret, jwks }), token, required);
  };
}

async function verifyJwt(
  token: string,
  { jwtSecret, jwks }: { jwtSecret?: string; jwks?: JsonWebKey[] },
): Promise<Record<string, unknown>> {
  try {
    const alg = JSON.parse(atob(token.split(".")[0].replace(/-/g, "+").replace(/_/g, "/"))).alg;
    if (alg === "HS256" && jwtSecret) return await verify(token, jwtSecret, "HS256");
    if (jwks?.length) {
      return await verifyWithJwks(token, {
        keys: jwks as Parameters<typeof verifyWithJwks>[1]["keys"],
        allowedAlgorithms: ["ES256", "RS256"],
      });
    }
  } catch (error) {
    throw unauthorized(`The JWT is not valid: ${(error as Error).message}`);
  }
  throw unauthorized("The JWT is signed with an algorithm this server does not accept");
}

function callerFromClaims(
  claims: Record<string, unknown>,
  token: string,
  required: boolean,
): Caller {
  const sub = claims.sub;
  if (claims.role === "authenticated" && typeof sub === "string" && UUID.test(sub)) {
    return { userId: sub, claims, token, owner: `user:${sub}` };
  }
  // The project's anon or service key: valid, but not a user.
  if (required && claims.role !== "service_role") {
    throw unauthorized("The JWT does not identify a signed-in user");
  }
  return claims.role === "service_role" ? { userId: null, owner: "service_role" } : ANONYMOUS;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function bearerToken(header: string | null): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Use "Authorization: Bearer <token>"');
  return match[1];
}

function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);
}

async function digestKeys(apiKeys: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const entries = await Promise.all(
    [...apiKeys].map(async ([name, key]) => [await sha256Hex(key), name] as const),
  );
  return new Map(entries);
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function unauthorized(message: string): AppError {
  return new AppError("UNAUTHORIZED", message);
}
