/**
 * The key MCP approvals' `requestState` is signed with: HKDF-SHA256 of the
 * configured secret (`MCP_LOOP_REQUEST_STATE_KEY`, or one every instance
 * already shares), so every instance signs and verifies alike and the key is
 * used for nothing else. Without a secret, a random key of this process (one
 * process, such as stdio or a local server, needs no more). No SDK import: the
 * composition root builds it.
 */

/** What the key is derived for (HKDF `info`): another purpose gets another key. */
const PURPOSE = "mcp-loop/mcp-approval-request-state/v1";

/** A function giving the 32-byte key, derived once. */
export function requestStateKey(
  source: { secret: string } | undefined,
): () => Promise<Uint8Array> {
  let key: Promise<Uint8Array> | undefined;
  return () => key ??= derive(source);
}

async function derive(source: { secret: string } | undefined): Promise<Uint8Array> {
  if (!source) return crypto.getRandomValues(new Uint8Array(32));
  const encode = (text: string) => new TextEncoder().encode(text);
  const material = await crypto.subtle.importKey("raw", encode(source.secret), "HKDF", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: encode("mcp-loop"), info: encode(PURPOSE) },
    material,
    256,
  );
  return new Uint8Array(bits);
}
