/**
 * Token counts for budgets and embedding inputs: cl100k_base (the tokenizer of
 * OpenAI's embedding models) with only its first 30,000 merges
 * (shared/vendor/cl100k-prefix), 0.26 MB of ranks where the whole 100,256
 * are 1.16 MB (0.41 of the deployed bundle's brotli MB).
 *
 * BPE applies merges in rank order, so stopping at a rank leaves every text
 * in the same pieces or more: this count is never below cl100k_base's. It is
 * 4–10 % above it on English prose, code, JSON and SQL, 1.5 times on
 * Japanese (tests/vendor/cl100k_bound_test.ts measures it), and a text cut to
 * N of these tokens holds at most N of cl100k_base's.
 */

// Types only: the npm package is not bundled (a type import is not followed).
type Encoding = typeof import("gpt-tokenizer/encoding/cl100k_base");

/** What is used of the encoding. */
export type Cl100kBound = Pick<Encoding, "encode" | "decode" | "countTokens" | "encodeChat">;

/** How many of cl100k_base's ranks are kept. */
export const KEPT_RANKS = 25_000;

interface GptEncodingModule {
  GptEncoding: {
    getEncodingApi(name: "cl100k_base", ranks: () => unknown): Cl100kBound;
  };
}

let encoding: Promise<Cl100kBound> | undefined;

/** The encoding, loaded on first use (literal specifiers: the bundler takes these files). */
export function cl100kBound(): Promise<Cl100kBound> {
  return encoding ??= Promise.all([
    import("../../vendor/gpt-tokenizer/GptEncoding.js") as Promise<GptEncodingModule>,
    import("../../vendor/cl100k-prefix/ranks.js") as Promise<{ default: unknown }>,
  ]).then(([{ GptEncoding }, { default: ranks }]) =>
    GptEncoding.getEncodingApi("cl100k_base", () => ranks)
  );
}

/**
 * Text that spells a special token (`<|endoftext|>`) is ordinary text to the API: counted as such,
 * never refused (the tokenizer's default throws on it).
 */
export const AS_TEXT = { disallowedSpecial: new Set<string>() };
