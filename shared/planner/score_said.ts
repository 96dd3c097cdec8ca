/**
 * A score said the way people say one: hedges ("hmm", "I'd say"), at most
 * one way of saying what the number is ("give it", "bump it to", "it
 * deserves", "score:"), a qualifier or two ("a solid"), the number with its
 * scale ("six out of ten": 60) and hedges after it ("I reckon"). Any other
 * word and it is no score: "it's 5 pm", "call me at 9".
 */
import { SPELLED_NUMBER, spelledNumber, spelledNumbersIn } from "../text/spelled_numbers.ts";
import { tokenize } from "../text/words.ts";
import { isKnownVerb } from "./action_words.ts";

/** A score the message says, and whether its words ask to record it ("give it 90", not "90"). */
export interface SaidScore {
  score: number;
  asked: boolean;
}

/**
 * The score the message says (0 to 100 after its scale), or undefined. An
 * aside after a comma is left out ("set it to eighty, I'm fairly happy with
 * it"), unless it asks for more ("give it 90, and start a spec loop").
 */
export function scoreSaid(written: string): SaidScore | undefined {
  const text = written.trim().replace(/[’‘]/g, "'");
  const comma = text.lastIndexOf(",");
  const aside = comma > 0 && isAside(text.slice(comma + 1));
  const match = SCORE_SAID.exec(text) ?? (aside ? SCORE_SAID.exec(text.slice(0, comma)) : null) ??
    afterRemark(text);
  if (!match?.groups) return undefined;
  const { asked, number, half, slashed, outOf } = match.groups;
  const whole = /^[\d.]+$/.test(number)
    ? Number(number)
    : MARKS[number.split(/\s/)[0].toLowerCase()] ?? spelledNumber(number);
  if (whole === undefined) return undefined;
  // "four and a half out of 5".
  const said = half ? whole + 0.5 : whole;
  const scale = slashed ?? outOf;
  const score = scale === undefined ? said : Math.round(said * 100 / scaleOf(scale));
  if (scale !== undefined && said > scaleOf(scale)) return undefined;
  // "8.5" with no scale could be of ten or of a hundred: no score.
  return score <= 100 && Number.isInteger(score)
    ? { score, asked: asked !== undefined }
    : undefined;
}

/**
 * The score after a short remark on the thing: "looks decent tbh, 78", "tests mostly green so 69",
 * "nailed it — 99" (a remark of eight words at most, with no number and no verb that asks).
 */
function afterRemark(text: string, depth = 0): RegExpExecArray | null {
  const said = depth < 3 ? REMARK_THEN_SCORE.exec(text) : null;
  const words = tokenize(said?.[1] ?? "");
  // "looks decent" describes; "look at it" would ask; "my code review went badly" is about the
  // writer, not the draft, unless a score is asked for after it ("my review came back, the
  // reviewer says 77"; not "my essay went badly, got 40 points").
  const asks = isKnownVerb(words[0] ?? "") && !words[0].endsWith("s");
  const remark = words.length > 0 && words.length <= 8 && !/\d/.test(said![1]) && !asks &&
    spelledNumbersIn(said![1]).length === 0;
  // "okay so the code is solid i'd give it 95": the remark may go on past its first break.
  const score = remark ? SCORE_SAID.exec(said![2]) ?? afterRemark(said![2], depth + 1) : null;
  return score && (!ABOUT_WRITER.has(words[0]) || score.groups?.asked !== undefined &&
        !PLAIN_ALONE.test(score.groups.asked))
    ? score
    : null;
}

/**
 * A remark, then the score: after a comma, a sentence's end, a dash, an arrow or "so", or
 * before "I'd give it …" ("the code is pretty solid i would give it 95").
 */
const REMARK_THEN_SCORE =
  /^(.+?)(?:[,;:…]|\.{2,}|\.(?=\s)|\s[—–-]|\s*(?:->|→|=>)|\s+so|(?=\s+(?:i|id|i'd|i'll|i would|we|we'd)\s+(?:would\s+)?(?:give|rate|score|mark|say|call|put)\b))\s+([^,;:…]+)$/i;

/** Words that say what a score was rather than ask to record it: "got", "scored". */
const PLAIN_ALONE = /^(?:scored?|got)$/i;

const ABOUT_WRITER = new Set(["my", "our", "i", "we", "me", "us"]);

/** "half marks", "full marks". */
const MARKS: Record<string, number> = { half: 50, full: 100 };

/** The number a scale is said as: "10", "ten", "a hundred". */
function scaleOf(scale: string): number {
  return /^\d+$/.test(scale) ? Number(scale) : /hundred/i.test(scale) ? 100 : spelledNumber(scale)!;
}

/** Words after a score that say nothing more to do: "nice job", "much better now" (no number, no ask). */
function isAside(tail: string): boolean {
  const words = tokenize(tail);
  return words.length > 0 && words.length <= 7 && !/\d/.test(tail) &&
    !isKnownVerb(words[0]) && !words.some((word) => ASKING_MORE.has(word)) &&
    spelledNumbersIn(tail).length === 0;
}
const ASKING_MORE = new Set(["and", "then", "also", "plus", "please", "can", "could", "would"]);

const alternatives = (...sources: string[]) => `(?:${sources.join("|")})`;

const HEDGE = String
  .raw`(?:ok|okay|wow|eh|meh|um|uh|er|hm|oops|whoops|sorry|typo|my bad|correction|wait|scratch that|again|(?:round|pass|iteration|try|attempt)\s+(?:one|two|three|four|five|\d)|(?:can|could|would) you|please|pls|kindly|(?:this|that)(?:\s+one)?'s|(?:i'm\s+|i am\s+)?(?:gonna|going to)|i'll|i will|let me|alright|right|yeah|yes|oh|actually|now|hmm+|then|so|and|well|no|done|honestly|ugh|argh|wrong\s+(?:number|score)|on second thought|(?:close to|nearly|almost)\s+perfect|(?:(?:that's|that was)\s+)?(?:too|a bit|way too)\s+(?:generous|harsh|high|low|kind|strict)|maybe|probably|let's|lets|let us|i\s+(?:think|guess|reckon|suppose|feel)|i(?:'d| would)?\s+say|(?:i'm|i am)\s+thinking|say|(?:it's|its|it is|that's|that is)|i(?:'ve| have)?\s+(?:refined|revised|improved|updated|reworked|fixed|changed|tweaked|edited)\s+(?:it|this|that|the\s+\w+))`;

const SCORED = alternatives(
  String.raw`(?:the|its|my)\s+(?:score|rating|grade|marks?)`,
  "it",
  "this",
  "that",
  "this one",
  "that one",
  String
    .raw`(?:the|whichever|which)\s+(?:one|loop)\s+(?:(?:i|we)\s+(?:just\s+)?(?:started|made|opened|began|created)(?:\s+in\s+(?:between|the\s+middle)|\s+\w+)?|came\s+\w+)`,
  String
    .raw`(?:the|this|that|my)\s+(?:[\p{L}_-]+\s+){0,2}?(?:loop|version|draft|one|iteration|attempt|try|round|revision|pass)`,
  // "the planning loop's score", "its score".
  String
    .raw`(?:the|this|that|my)\s+(?:[\p{L}_-]+\s+){0,2}?(?:loop|one)'s\s+(?:score|rating|grade|mark)`,
);

/** Who reviews a draft. */
const REVIEWER =
  "reviewers?|review|teacher|tutor|tester|qa|grader|judge|examiner|editor|mentor|prof|professor";

const WHO = String
  .raw`(?:(?:i|i'd|id|i would|i'll|i will|i'm|im|i am|we|we'd|we would|we'll|we will|we're|we are)\s+)?`;

/** The words that say what the number is: a verb for it, or one for a plain value. */
const ASKING = alternatives(
  String
    .raw`${WHO}(?:give|giving|gave|hand|slap|stick|rate|rating|grade|grading|mark|marking|score|scoring|evaluate|assess|judge)(?:\s+to)?\s+${SCORED}(?:\s+(?:as|at|with))?`,
  // "i rate 77" (after the thing was named).
  String.raw`${WHO}(?:rate|grade|score|mark)`,
  String
    .raw`${WHO}(?:put|set|bump(?:ed)?|raise[ds]?|lower(?:ed)?|drop(?:ped)?|move[ds]?|change[ds]?|update[ds]?|call(?:ed)?|make|made)\s+${SCORED}(?:\s+(?:up|down))?(?:\s+(?:as|at|to|on))?`,
  String
    .raw`(?:go|going|settle|land)\s+(?:with|on|for)|(?<=(?:gonna|going to|i'll|let's|lets)\s+)go`,
  // "bump to 88", "raise it to 60": the value it moves to.
  String
    .raw`${WHO}(?:bump(?:ed)?|raise[ds]?|lower(?:ed)?|move[ds]?|change[ds]?|update[ds]?)(?:\s+it)?(?:\s+(?:up|down))?\s+to`,
  // "log a grade of 82 against it", "give it a score of 70".
  String
    .raw`${WHO}(?:record|log|note|enter|give|put(?:\s+down)?)(?:\s+(?:it|this|that))?\s+(?:a|the)\s+(?:score|grade|rating|mark)\s+of`,
  // "quality is about 83%".
  String.raw`(?:the\s+)?quality(?:\s+(?:is|s))?`,
  // "put 85 on this one", "give 60 to it": the verb, then the number.
  String.raw`${WHO}(?:put(?:\s+down)?|give|slap|stick|write\s+down|assign)`,
  // "this attempt: 58".
  String.raw`${SCORED}\s*[:=-]`,
  // "this draft only deserves a 47", "now its worth 86", "it came out at 58".
  String
    .raw`${SCORED}(?:\s+(?:only|really|just|probably|definitely|easily|barely|still|now|surely))?(?:\s+(?:deserved?s?|earn(?:s|ed)?|merit(?:s|ed)?|is worth|was worth|gets|came out at|comes out at|ended up at|landed at)|(?:'s|s|\s+is)\s+(?:now\s+)?worth)`,
  String
    .raw`(?:(?:my|our|the|final)\s+)?(?:score|rating|grade|mark|verdict)(?:\s*[:=-]|\s+is|\s+of|(?=\s+(?:\d|${SPELLED_NUMBER})))`,
  // "the reviewer says 70", "my boss gave it 64": a score someone gave (what a boss says may be a
  // time).
  String
    .raw`(?:(?:the|my|our)\s+)?(?:(?:${REVIEWER})\s+(?:says?|said|gave|gives|came\s+back\s+with)|(?:${REVIEWER}|boss|manager|client|customer|team|lead)\s+(?:gave|gives|rated|scored)\s+${SCORED}(?:\s+(?:at|as))?)`,
  // "the right number is 29": a correction.
  String.raw`the\s+(?:right|real|correct|actual)\s+(?:number|score)\s*(?:[:=-]|is)`,
  // "record 55 for it", "log 70": a verb of writing a score down.
  String.raw`${WHO}(?:record|log|note|jot(?:\s+down)?|write\s+down|enter)`,
  // "my score for this round: 64".
  String
    .raw`(?:my\s+)?(?:score|rating|grade|mark)\s+for\s+(?:this|the|that)\s+(?:round|draft|version|one|iteration|attempt)\s*(?:[:=-]|is)`,
  // "for the spec: 83": the thing, then its score.
  String.raw`for\s+${SCORED}\s*[:=,-]`,
  // "for the spec I'd give 77".
  String.raw`for\s+${SCORED}\s+${WHO}(?:give|rate|score|mark|say|put)`,
  // "for the spec loop my grade is 80".
  String.raw`for\s+${SCORED}\s+(?:my|our|the)\s+(?:score|grade|rating|mark)\s*(?:is|[:=])`,
  // "it cleared review with 92%".
  String
    .raw`(?:it|this|that)\s+(?:cleared|passed)\s+(?:the\s+)?(?:review|qa|testing)\s+(?:with|at)`,
  // A correction: "oops, I meant 72", "sorry, it should be 60".
  String.raw`(?:i\s+)?(?:meant|mean)(?:\s+to\s+say|\s+to\s+give\s+${SCORED})?`,
  String.raw`(?:(?:it|that|this|the\s+score)\s+)?should\s+(?:be|have\s+been)`,
);
const PLAIN = alternatives(
  String.raw`(?:it's|it is|its|we're|we are|now)\s+at`,
  String
    .raw`(?:(?:the\s+|my\s+)?(?:[\p{L}_-]+\s+){0,2}?(?:version|draft|loop|try|attempt|round|pass|review)|(?:the\s+)?(?:first|next|new|latest|second|third|other|last|previous|this|my)?\s*one)\s+(?:scored|got|gets|is|was|lands|landed|says|comes\s+in|came\s+in|came\s+out|comes\s+out|came\s+back(?:\s+(?:with|at))?|sits)(?:\s+(?:at|on))?`,
  // "the one in the middle scored 68"
  String.raw`the\s+(?:one|loop)\s+in\s+the\s+middle\s+(?:scored|got|gets|is|was)(?:\s+at)?`,
  // "we landed on 60 this round"
  String.raw`we\s+(?:landed|ended\s+up)\s+(?:on|at)`,
  "scored?",
  "got",
);

const QUALIFIER = String
  .raw`(?:a|an|about|around|roughly|approximately|like|maybe|just|only|solid|strong|good|decent|fair|clear|clean|generous|full|meh|mediocre|measly|whopping|perfect)`;

const SCALE = String
  .raw`(?:\s*\/\s*(?<slashed>5|10|100)|\s*%|\s+percent|\s+(?:points?|pts?)|(?:\s+stars?)?\s+(?:(?:out\s+)?of|outta|from|on)\s+(?<outOf>5|10|100|five|ten|a hundred|one hundred|hundred)(?:\s+stars)?)`;

const ENDING = String
  .raw`(?:now|this time|this (?:round|iteration|go|pass)|instead|then|please|porfa|por favor|bitte|svp|sir|mate|nailed it|once more|again|no change|after\s+(?:reading|reviewing|checking|testing)\s+(?:it|this|that)|for\s+(?:round|pass|iteration|try|attempt)\s+(?:one|two|three|four|five|\d)|more or less|(?:many\s+)?thanks|thank\s+you|thx|cheers|no\s+notes|lol|haha|(?:surely|probably|hopefully|so)\s+(?:done|finished|complete)|give or take|or thereabouts|(?:log|record|note|save|write|put)\s+(?:it|that|this)(?:\s+(?:against|on|for|under)\s+(?:it|this|that)(?:\s+loop)?)?|from\s+(?:the\s+)?(?:team|reviewers?|client|boss|qa)|(?:for|from)\s+me|maybe|probably|honestly|or so|ish|tops|for now|for this one|(?:on|for|to)\s+(?:that|this|the|my)(?:\s+(?:[\p{L}_-]+\s+){0,2}?(?:one|draft|version|attempt|try|round|loop))?|(?:on|for|to)\s+it|i\s+(?:think|guess|reckon|suppose)|(?:sounds|seems|feels)\s+(?:right|fair|good|about right)|is\s+(?:fair|right)|imo|imho|tbh|only|actually|at\s+(?:best|most)|not\s+bad|flawless|against\s+(?:it|this|that)|(?:it|this|that)(?:'s| is| has)?\s+(?:got|gotten|is|was)\s+(?:a bit\s+|much\s+|way\s+|a lot\s+)?(?:worse|better))`;

const SCORE_SAID = new RegExp(
  // "that plan loop, I'm giving it 70": the thing first, as an aside.
  String
    .raw`^\W*(?:(?:${HEDGE}|${SCORED}\s*,)\W+)*(?:(?<asked>${ASKING}|${PLAIN})\s*)?(?:${QUALIFIER}\s+){0,2}` +
    String
      .raw`(?<number>\d{1,3}(?:\.\d{1,2})?|${SPELLED_NUMBER}|(?:half|full)\s+marks)(?<half>\s+and\s+a\s+half)?(?:-?ish)?${SCALE}?(?:[\s,!?—–-]+${ENDING})*[\s.!?]*$`,
  "iu",
);
