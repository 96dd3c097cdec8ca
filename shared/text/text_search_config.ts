/**
 * The Postgres text search configuration a message is indexed (and a question
 * searched) with. A configured name is used as it is; "auto", the default,
 * picks `english` for English text — its words are stemmed and its stop words
 * left out — and `simple` (no stemming, any language) for anything else.
 * English is told by its stop words: at least a quarter of the words of
 * English prose are on Snowball's list, while other languages that share a few
 * of them ("in", "so", "was") rarely come near that share.
 */
import { ENGLISH_STOP_WORDS } from "./search_terms.ts";
import { tokenize } from "./words.ts";

/** The configuration value that asks for detection. */
export const AUTO_TEXT_SEARCH_CONFIG = "auto";

/** The configuration for `text`: `configured`, or with "auto" `english` or `simple`. */
export function textSearchConfigFor(text: string, configured: string): string {
  if (configured !== AUTO_TEXT_SEARCH_CONFIG) return configured;
  return looksEnglish(text) ? "english" : "simple";
}

/** At least two words, and a quarter of them English stop words. */
function looksEnglish(text: string): boolean {
  const words = tokenize(text);
  const stop = words.filter((word) => ENGLISH_STOP_WORDS.has(word)).length;
  return words.length >= 2 && stop >= 1 && stop * 4 >= words.length;
}
