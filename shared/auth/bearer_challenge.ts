/**
 * The `WWW-Authenticate` challenge that accompanies every 401 (RFC 6750):
 * bare when no credential was sent, `error="invalid_token"` when one was refused.
 */
import type { AppError } from "../errors.ts";

/**
 * The `WWW-Authenticate` value for a refused request; with `resourceMetadata`
 * it also points at the protected-resource metadata (RFC 9728), where an MCP
 * client finds the authorization server to sign in with.
 */
export function bearerChallenge(
  error: Pick<AppError, "code" | "message">,
  { resourceMetadata }: { resourceMetadata?: string } = {},
): string {
  const metadata = resourceMetadata ? `, resource_metadata="${quoted(resourceMetadata)}"` : "";
  if (error.code === "AUTH_REQUIRED") return `Bearer realm="mcp-loop"${metadata}`;
  return `Bearer realm="mcp-loop"${metadata}, error="invalid_token", error_description="${
    quoted(error.message)
  }"`;
}

/** A quoted-string of printable ASCII without '"' or '\' (RFC 6750, section 3). */
function quoted(text: string): string {
  return text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "'");
}
