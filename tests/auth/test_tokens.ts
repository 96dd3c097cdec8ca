/** Test keys and tokens shaped like Supabase's: signed here, never fetched from anywhere. */
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";

/** A legacy HS256 project secret. */
export const SECRET = "test-secret-with-at-least-32-characters!";

/** Two users. */
export const USER_A = "6f1c1b0e-8a4f-4f3e-9d55-0c3a1f7b2e11";
export const USER_B = "0d9e8f7a-1b2c-4d3e-8f4a-5b6c7d8e9f00";

/** A signing key pair with its public JWK (as a project's JWKS lists it). */
export interface TestKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JsonWebKey;
}

/** A fresh ES256 key pair named `kid`. */
export async function es256Key(kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  return { kid, privateKey, publicJwk: publicJwk as JsonWebKey };
}

/** The claims of a signed-in user's access token. */
export function userClaims(userId: string, extra: JWTPayload = {}): JWTPayload {
  return { sub: userId, role: "authenticated", aud: "authenticated", ...extra };
}

/** A token signed with the HS256 secret, valid for an hour unless `expiresAt` says otherwise. */
export function hs256Token(
  claims: JWTPayload,
  { secret = SECRET, expiresAt = "1h" }: { secret?: string; expiresAt?: string | number } = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt()
    .setExpirationTime(expiresAt)
    .sign(new TextEncoder().encode(secret));
}

/** A token signed with an ES256 key (its kid in the header). */
export function es256Token(
  key: TestKey,
  claims: JWTPayload,
  { expiresAt = "1h" }: { expiresAt?: string | number } = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", typ: "JWT", kid: key.kid })
    .setIssuedAt()
    .setExpirationTime(expiresAt)
    .sign(key.privateKey);
}

/** An unsigned token (`alg: none`), built by hand as an attacker would. */
export function unsignedToken(claims: JWTPayload): string {
  const part = (value: unknown) =>
    btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  const exp = Math.floor(Date.now() / 1000) + 3600;
  return `${part({ alg: "none", typ: "JWT" })}.${part({ ...claims, exp })}.`;
}

/** The time `seconds` ago, in seconds since the epoch (for expired tokens). */
export function secondsAgo(seconds: number): number {
  return Math.floor(Date.now() / 1000) - seconds;
}
