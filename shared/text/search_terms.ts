/**
 * The terms full-text ranking compares, as Postgres's `english` text search
 * configuration makes them: lower-cased, accent-free words, without English
 * stop words (Snowball's list, which Postgres ships as `english.stop`), each
 * reduced to its Snowball English stem. Words of other languages pass
 * through mostly unchanged (the stemmer strips only English suffixes).
 */
import { stemEnglish } from "./english_stemmer.ts";
import { tokenize } from "./words.ts";

/** Snowball's English stop words (Postgres's `english.stop`): function words, pronouns, auxiliaries. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  ("i me my myself we our ours ourselves you your yours yourself yourselves he him his himself " +
    "she her hers herself it its itself they them their theirs themselves what which who whom " +
    "this that these those am is are was were be been being have has had having do does did " +
    "doing a an the and but if or because as until while of at by for with about against " +
    "between into through during before after above below to from up down in out on off over " +
    "under again further then once here there when where why how all any both each few more " +
    "most other some such no nor not only own same so than too very s t can will just don " +
    "should now").split(" "),
);

/** The stemmed words of `text` that are not stop words, in order (repeats kept). */
export function searchTerms(text: string): string[] {
  return tokenize(text).filter((word) => !ENGLISH_STOP_WORDS.has(word))
    .map(stemEnglish);
}
