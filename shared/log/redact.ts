/**
 * Removes secrets from text before it reaches a client or a log: the
 * configured secret values themselves, and anything shaped like an API key or
 * a bearer token.
 */

const KEY_SHAPES = [
  /\bsk-[A-Za-z0-9_*.-]{6,}/g, // OpenAI keys, including the SDK's masked "sk-abc***xyz" form
  /\bsb_(?:secret|publishable)_[A-Za-z0-9_-]{6,}/g, // Supabase API keys
  /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, // JWTs
];

/** All the shapes in one pass (it runs on every log line). */
const ANY_SHAPE = new RegExp(KEY_SHAPES.map((shape) => shape.source).join("|"), "gi");

/** Builds a redactor that also removes each of `secrets` (values shorter than 6 are ignored). */
export function createRedactor(
  secrets: readonly (string | undefined)[] = [],
): (text: string) => string {
  const exact = secrets.filter((s): s is string => typeof s === "string" && s.length >= 6);
  return (text) => {
    let out = text;
    for (const secret of exact) {
      if (out.includes(secret)) out = out.replaceAll(secret, "[redacted]");
    }
    return out.replace(ANY_SHAPE, "[redacted]");
  };
}

/** Redacts the secret shapes only (no configured values). */
export const redactKeyShapes: (text: string) => string = createRedactor();
