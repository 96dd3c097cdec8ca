/**
 * Whole numbers from zero to a hundred written in English words: "seventy",
 * "eighty five", "sixty-two", "a hundred", "one hundred". Scores are said
 * this way as often as in digits ("give it ninety").
 */

const UNITS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
];
const TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];

/** A number in words, as a regular expression's source (no groups of its own). */
export const SPELLED_NUMBER = String.raw`(?:(?:a|one)\s+hundred|(?:${TENS.join("|")})(?:[\s-]+(?:${
  UNITS.slice(1, 10).join("|")
}))?|${UNITS.join("|")})`;

const WHOLE = new RegExp(String.raw`^${SPELLED_NUMBER}$`, "i");
/** A number in words standing as a word of its own (`matchAll` copies it: safe to share). */
const IN_TEXT = new RegExp(String.raw`(?<![\p{L}\d-])${SPELLED_NUMBER}(?![\p{L}\d-])`, "giu");

/** The value of a number written in words ("eighty five": 85), or undefined. */
export function spelledNumber(words: string): number | undefined {
  const text = words.trim().toLowerCase().replace(/\s+/g, " ");
  if (!WHOLE.test(text)) return undefined;
  if (/hundred$/.test(text)) return 100;
  const [first, second] = text.split(/[\s-]+/);
  const tens = TENS.indexOf(first);
  if (tens < 0) return UNITS.indexOf(first);
  return (tens + 2) * 10 + (second ? UNITS.indexOf(second) : 0);
}

/**
 * The numbers written in words in `text`, in order, each with where it starts; not a bare
 * "one", which is mostly a pronoun ("the one I started", "another one").
 */
export function spelledNumbersIn(text: string): { value: number; index: number }[] {
  const found: { value: number; index: number }[] = [];
  for (const match of text.matchAll(IN_TEXT)) {
    const value = spelledNumber(match[0]);
    if (value !== undefined && !/^one$/i.test(match[0])) found.push({ value, index: match.index });
  }
  return found;
}
