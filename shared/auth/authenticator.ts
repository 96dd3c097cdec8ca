/**
 * Who is calling: an API key (`MCP_LOOP_API_KEYS`), a Supabase JWT verified
 * in the function (see jwt_verifier.ts), or nobody (anonymous, unless
 * authentication is required).
 */
import { AppError } from "../errors.ts";
import { ANONYMOUS, type Caller, type Logger, SILENT_LOGGER } from "../ports.ts";
import { createJwtVerifier, type JwtVerifier, type JwtVerifierOptions } from "./jwt_verifier.ts";
import { VerifiedTokens } from "./verified_tokens.ts";

/**
 * Resolves the caller of a request; throws a 401 AppError (AUTH_REQUIRED,
 * UNAUTHORIZED or a TOKEN_* code) for a missing or bad credential, and
 * AUTH_KEYS_UNAVAILABLE (503) when the signing keys cannot be fetched.
 */
export type Authenticate = (req: Request) => Promise<Caller>;

/** How callers are recognised. */
export interface AuthOptions extends JwtVerifierOptions {
  /** API keys by name; the key is sent as `Authorization: Bearer <key>`. */
  apiKeys?: ReadonlyMap<string, string>;
  /** Refuse requests without a valid credential (and the project's anon key). */
  required?: boolean;
  /** The project's secret API keys (`sb_secret_…`): accepted as the service role. */
  projectSecretKeys?: readonly string[];
  /** How long a verified token's caller is remembered (never past its `exp`; 0 turns it off). */
  verifiedTokenTtlMs?: number;
  logger?: Logger;
}

/** What the server knows to recognise a bearer token by. */
interface Credentials {
  /** API key names by the SHA-256 of the key. */
  keyNamesByDigest: Promise<Map<string, string>>;
  /** The project's secret keys' SHA-256 digests. */
  secretKeyDigests: Promise<Map<string, string>>;
  apiKeys: ReadonlyMap<string, string>;
  required: boolean;
  verifier: JwtVerifier;
  /** Says, once, that JWTs arrive with no keys configured to verify them. */
  warnUnverifiable: () => void;
}

/** Builds the request authenticator. */
export function createAuthenticator(
  {
    apiKeys = new Map(),
    required = false,
    projectSecretKeys = [],
    logger = SILENT_LOGGER,
    verifiedTokenTtlMs = 300_000,
    ...jwt
  }: AuthOptions = {},
): Authenticate {
  const verified = new VerifiedTokens({ ttlMs: verifiedTokenTtlMs });
  let warned = false;
  const credentials: Credentials = {
    keyNamesByDigest: digestKeys(apiKeys),
    secretKeyDigests: digestKeys(new Map(projectSecretKeys.map((key) => [key, key]))),
    apiKeys,
    required,
    verifier: createJwtVerifier(jwt),
    warnUnverifiable: () => {
      if (warned) return;
      warned = true;
      logger.warn(
        "a JWT was sent but no signing keys are configured (SUPABASE_URL, SUPABASE_JWKS, or MCP_LOOP_JWT_SECRET for a legacy HS256 secret); treating callers as anonymous",
      );
    },
  };
  return async (req) => {
    const token = bearerToken(req.headers.get("authorization"));
    if (token === undefined) {
      if (required) {
        throw new AppError(
          "AUTH_REQUIRED",
          "This server requires a credential: send Authorization: Bearer <Supabase access token or API key>",
        );
      }
      return ANONYMOUS;
    }
    const known = verified.get(token);
    if (known) return known;
    const caller = await identify(token, credentials);
    verified.set(token, caller);
    return caller;
  };
}

/** The caller a bearer token stands for; throws for a token that is refused. */
async function identify(token: string, credentials: Credentials): Promise<Caller> {
  const { required, verifier } = credentials;
  const digest = await sha256Hex(token);
  const keyName = (await credentials.keyNamesByDigest).get(digest);
  if (keyName !== undefined) return { userId: null, owner: `key:${keyName}` };
  // The project's new-style API keys, as supabase-js sends them when nobody is signed in.
  if (token.startsWith("sb_publishable_")) return projectKeyCaller("publishable key", required);
  if (token.startsWith("sb_secret_")) {
    if ((await credentials.secretKeyDigests).has(digest)) {
      return { userId: null, owner: "service_role" };
    }
    throw new AppError(
      "UNAUTHORIZED",
      "The bearer token is a Supabase secret key this project does not have; check the key you send",
    );
  }
  if (!looksLikeJwt(token)) return notJwtCaller(credentials);
  if (!verifier.configured) {
    if (required) {
      throw new AppError(
        "TOKEN_ALGORITHM_REFUSED",
        "This server has no key to verify JWTs; set SUPABASE_URL (for its JWKS) or MCP_LOOP_JWT_SECRET (a legacy HS256 secret), or send an API key",
      );
    }
    credentials.warnUnverifiable();
    return ANONYMOUS;
  }
  return callerFromClaims(await verifier.verify(token), token, required);
}

/** A token that is no key we know and no JWT: refused, unless nothing is configured to check it. */
function notJwtCaller({ apiKeys, required, verifier }: Credentials): Caller {
  if (apiKeys.size > 0) {
    throw new AppError(
      "UNAUTHORIZED",
      "The bearer token is neither a known API key nor a JWT; check the key you send",
    );
  }
  if (required || verifier.configured) {
    throw new AppError(
      "TOKEN_MALFORMED",
      "The bearer token is not a JWT; send the access token of a Supabase session",
    );
  }
  return ANONYMOUS;
}

/**
 * The caller of a verified token: the project's anon and service_role keys are
 * not users; any other role (`authenticated`, or a custom role set by an
 * access-token hook) is the user its `sub` names.
 */
function callerFromClaims(
  claims: Record<string, unknown>,
  token: string,
  required: boolean,
): Caller {
  if (claims.role === "service_role") return { userId: null, owner: "service_role" };
  if (claims.role === "anon") return projectKeyCaller("anon key", required);
  const sub = claims.sub;
  if (typeof sub !== "string" || !UUID.test(sub)) {
    throw new AppError(
      "TOKEN_CLAIMS_INVALID",
      `The JWT (role ${
        JSON.stringify(claims.role ?? null)
      }) has no user id in "sub"; send a Supabase Auth access token`,
    );
  }
  // One user, one spelling: Postgres reads "sub" as a uuid (auth.uid() is lower case), so an
  // upper-case sub must not make rows the database then refuses to let this user write.
  const userId = sub.toLowerCase();
  return { userId, claims: { ...claims, sub: userId }, token, owner: `user:${userId}` };
}

/** The project's anon or publishable key: valid, but nobody in particular. */
function projectKeyCaller(kind: string, required: boolean): Caller {
  if (required) {
    throw new AppError(
      "AUTH_REQUIRED",
      `The token is the project's ${kind}, not a signed-in user's; sign in and send the session's access token`,
    );
  }
  return ANONYMOUS;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function bearerToken(header: string | null): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) {
    throw new AppError("UNAUTHORIZED", 'Use "Authorization: Bearer <token>"');
  }
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
