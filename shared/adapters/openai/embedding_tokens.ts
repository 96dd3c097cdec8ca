/**
 * Embedding inputs cut to a token limit, counted by {@link cl100kBound} (never
 * below cl100k_base, the tokenizer of OpenAI's embedding models; an estimate
 * for other models). The tokenizer is loaded on the first text long enough to
 * need counting: a text of at most `limit` UTF-8 bytes cannot have more tokens.
 */
import { AS_TEXT, cl100kBound } from "./cl100k_bound.ts";

const encoder = new TextEncoder();

/** A text ready to embed, with its token count when it was counted. */
export interface EmbeddingInput {
  text: string;
  /** Its tokens, when counted; otherwise at most `bytes`. */
  tokens?: number;
  /** Its UTF-8 length: an upper bound of its tokens. */
  bytes: number;
  truncated: boolean;
}

/** `text` cut to at most `limit` tokens (unchanged when it fits). */
export async function fitToTokens(text: string, limit: number): Promise<EmbeddingInput> {
  const bytes = encoder.encode(text).length;
  if (bytes <= limit) return { text, bytes, truncated: false };
  const { encode, decode } = await cl100kBound();
  const tokens = encode(text, AS_TEXT);
  if (tokens.length <= limit) return { text, tokens: tokens.length, bytes, truncated: false };
  // A cut inside a character decodes to U+FFFD: drop it. Re-encoding a cut text can merge
  // differently at the end, so cut further until it fits.
  let keep = limit;
  while (keep > 0) {
    const cut = decode(tokens.slice(0, keep)).replace(/\uFFFD+$/, "");
    const count = encode(cut, AS_TEXT).length;
    if (count <= limit) {
      return { text: cut, tokens: count, bytes: encoder.encode(cut).length, truncated: true };
    }
    keep -= count - limit;
  }
  return { text: "", tokens: 0, bytes: 0, truncated: true };
}

/**
 * Inputs grouped into requests of at most `maxInputs` texts and `maxTokens`
 * tokens (counted, or bounded by bytes), in order.
 */
export function batches(
  inputs: readonly EmbeddingInput[],
  { maxInputs, maxTokens }: { maxInputs: number; maxTokens: number },
): EmbeddingInput[][] {
  const groups: EmbeddingInput[][] = [];
  let current: EmbeddingInput[] = [];
  let tokens = 0;
  for (const input of inputs) {
    const size = input.tokens ?? input.bytes;
    if (current.length > 0 && (current.length >= maxInputs || tokens + size > maxTokens)) {
      groups.push(current);
      current = [];
      tokens = 0;
    }
    current.push(input);
    tokens += size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
