/**
 * The Snowball English stemmer ("Porter2", M. F. Porter,
 * https://snowballstem.org/algorithms/english/stemmer.html): the stems
 * Postgres's `english` text search configuration gives, so tool search (in
 * TypeScript) and memory recall (in SQL) reduce "painted", "painting" and
 * "paints" to the same "paint". Lower-case ASCII words only; anything else is
 * returned as it is.
 */

const VOWEL = /[aeiouy]/;
const DOUBLES = ["bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"];
const LI_ENDING = /[cdeghkmnrt]$/;

/** Words the algorithm lists as exceptions, with their stems. */
const EXCEPTIONS: Record<string, string> = {
  skis: "ski",
  skies: "sky",
  dying: "die",
  lying: "lie",
  tying: "tie",
  idly: "idl",
  gently: "gentl",
  ugly: "ugli",
  early: "earli",
  only: "onli",
  singly: "singl",
  sky: "sky",
  news: "news",
  howe: "howe",
  atlas: "atlas",
  cosmos: "cosmos",
  bias: "bias",
  andes: "andes",
};

/** Left as they are after step 1a. */
const AFTER_1A = new Set(
  "inning outing canning herring earring proceed exceed succeed".split(" "),
);

const STEP2: [string, string][] = [
  ["ization", "ize"],
  ["ational", "ate"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["iveness", "ive"],
  ["tional", "tion"],
  ["biliti", "ble"],
  ["lessli", "less"],
  ["entli", "ent"],
  ["ation", "ate"],
  ["alism", "al"],
  ["aliti", "al"],
  ["ousli", "ous"],
  ["iviti", "ive"],
  ["fulli", "ful"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["abli", "able"],
  ["izer", "ize"],
  ["ator", "ate"],
  ["alli", "al"],
  ["bli", "ble"],
  ["ogi", "og"],
  ["li", ""],
];

const STEP3: [string, string][] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["alize", "al"],
  ["icate", "ic"],
  ["iciti", "ic"],
  ["ative", ""],
  ["ical", "ic"],
  ["ness", ""],
  ["ful", ""],
];

const STEP4 = (
  "ement ance ence able ible ment ant ent ism ate iti ous ive ize ion al er ic"
).split(" ");

/** The Snowball English stem of a lower-case word. */
export function stemEnglish(word: string): string {
  if (word.length <= 2 || !/^[a-z']+$/.test(word)) return word;
  if (Object.hasOwn(EXCEPTIONS, word)) return EXCEPTIONS[word];
  let w = word.startsWith("'") ? word.slice(1) : word;
  // y as a consonant: at the start, or after a vowel.
  w = w.replace(/^y/, "Y").replace(/([aeiouy])y/g, "$1Y");
  const r1 = regionR1(w);
  const r2 = regionAfter(w, r1);
  w = step0(w);
  w = step1a(w);
  if (AFTER_1A.has(w)) return w;
  w = step1b(w, r1);
  w = step1c(w);
  w = step2(w, r1);
  w = step3(w, r1, r2);
  w = step4(w, r2);
  w = step5(w, r1, r2);
  return w.replace(/Y/g, "y");
}

function isVowel(c: string | undefined): boolean {
  return c !== undefined && VOWEL.test(c);
}

function regionR1(w: string): number {
  for (const prefix of ["gener", "commun", "arsen"]) if (w.startsWith(prefix)) return prefix.length;
  return regionAfter(w, 0);
}

/** The start of the region after the first non-vowel following a vowel, from `from`. */
function regionAfter(w: string, from: number): number {
  for (let i = from + 1; i < w.length; i++) {
    if (!isVowel(w[i]) && isVowel(w[i - 1])) return i + 1;
  }
  return w.length;
}

function step0(w: string): string {
  for (const suffix of ["'s'", "'s", "'"]) {
    if (w.endsWith(suffix)) return w.slice(0, -suffix.length);
  }
  return w;
}

function step1a(w: string): string {
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (w.endsWith("ied") || w.endsWith("ies")) return w.slice(0, -3) + (w.length > 4 ? "i" : "ie");
  if (w.endsWith("us") || w.endsWith("ss")) return w;
  if (w.endsWith("s")) {
    // Deleted when a vowel comes before the letter before the s.
    const stem = w.slice(0, -2);
    return VOWEL.test(stem) ? w.slice(0, -1) : w;
  }
  return w;
}

function step1b(w: string, r1: number): string {
  for (const suffix of ["eedly", "eed"]) {
    if (w.endsWith(suffix)) {
      return w.length - suffix.length >= r1 ? w.slice(0, -suffix.length) + "ee" : w;
    }
  }
  for (const suffix of ["ingly", "edly", "ing", "ed"]) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    if (!VOWEL.test(stem)) return w;
    if (/(at|bl|iz)$/.test(stem)) return stem + "e";
    // A double is undoubled ("hopping" → "hop"), but not after a first a, e or o ("adding" → "add").
    if (DOUBLES.some((d) => stem.endsWith(d))) {
      return stem.length === 3 && /^[aeo]/.test(stem) ? stem : stem.slice(0, -1);
    }
    if (isShortWord(stem, r1)) return stem + "e";
    return stem;
  }
  return w;
}

function step1c(w: string): string {
  if (w.length > 2 && /[yY]$/.test(w) && !isVowel(w[w.length - 2])) return w.slice(0, -1) + "i";
  return w;
}

function step2(w: string, r1: number): string {
  for (const [suffix, replacement] of STEP2) {
    if (!w.endsWith(suffix)) continue;
    const at = w.length - suffix.length;
    if (at < r1) return w;
    if (suffix === "ogi" && w[at - 1] !== "l") return w;
    if (suffix === "li" && !LI_ENDING.test(w.slice(0, at))) return w;
    return w.slice(0, at) + replacement;
  }
  return w;
}

function step3(w: string, r1: number, r2: number): string {
  for (const [suffix, replacement] of STEP3) {
    if (!w.endsWith(suffix)) continue;
    const at = w.length - suffix.length;
    if (at < r1 || (suffix === "ative" && at < r2)) return w;
    return w.slice(0, at) + replacement;
  }
  return w;
}

function step4(w: string, r2: number): string {
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const at = w.length - suffix.length;
    if (at < r2) return w;
    if (suffix === "ion" && !/[st]$/.test(w.slice(0, at))) return w;
    return w.slice(0, at);
  }
  return w;
}

function step5(w: string, r1: number, r2: number): string {
  const at = w.length - 1;
  if (w.endsWith("e")) {
    if (at >= r2 || (at >= r1 && !endsWithShortSyllable(w.slice(0, at)))) return w.slice(0, at);
    return w;
  }
  if (w.endsWith("ll") && at >= r2) return w.slice(0, at);
  return w;
}

/** A short word: it ends in a short syllable and R1 is empty. */
function isShortWord(w: string, r1: number): boolean {
  return r1 >= w.length && endsWithShortSyllable(w);
}

/**
 * A short syllable: a non-vowel, a vowel, then a non-vowel other than w, x
 * or Y; or, for a two-letter word, a vowel then a non-vowel.
 */
function endsWithShortSyllable(w: string): boolean {
  const n = w.length;
  if (n === 2) return isVowel(w[0]) && !isVowel(w[1]);
  return n >= 3 && !isVowel(w[n - 3]) && isVowel(w[n - 2]) && !isVowel(w[n - 1]) &&
    !/[wxY]/.test(w[n - 1]);
}
