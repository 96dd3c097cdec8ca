/**
 * The `WWW-Authenticate` challenge that accompanies every 401 (RFC 6750):
 * bare when no credential was sent, `error="invalid_token"` when one was refused.
 */
import type { AppError } from "../errors.ts";

/** The `WWW-Authenticate` value for a refused request. */
export function bearerChallenge(error: Pick<AppError, "code" | "message">): string {
  if (error.code === "AUTH_REQUIRED") return 'Bearer realm="mcp-loop"';
  // A quoted-string of printable ASCII without '"' or '\' (RFC 6750, section 3).
  const description = error.message.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "'");
  return `Bearer realm="mcp-loop", error="invalid_token", error_description="${description}"`;
}
