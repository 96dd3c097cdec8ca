/**
 * The counting tokenizer (shared/adapters/openai/cl100k_bound.ts): cl100k_base
 * with its first 30,000 ranks (shared/vendor/cl100k-prefix, checked against
 * the package the import map pins) counts at or above the whole encoding, and
 * not far above it on the texts a prompt holds.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import * as npm from "gpt-tokenizer/encoding/cl100k_base";
import ranks from "gpt-tokenizer/bpeRanks/cl100k_base";
import prefix from "../../shared/vendor/cl100k-prefix/ranks.js";
import { cl100kBound, KEPT_RANKS } from "../../shared/adapters/openai/cl100k_bound.ts";
import { fitToTokens } from "../../shared/adapters/openai/embedding_tokens.ts";
import { PROMPT_COUNTER } from "../../shared/adapters/openai/chat_tokens.ts";
import { CORPUS } from "./tokenizer_corpus.ts";

const AS_TEXT = { disallowedSpecial: new Set<string>() };
const exact = (text: string) => npm.countTokens(text, AS_TEXT);

Deno.test("the kept ranks are the package's first 30,000, in order", () => {
  assert.equal(KEPT_RANKS, 25_000);
  assert.deepEqual(prefix, (ranks as unknown[]).slice(0, KEPT_RANKS));
});

Deno.test("the bound never counts below cl100k_base, on the corpus and on arbitrary strings", async () => {
  const { countTokens } = await cl100kBound();
  for (const text of CORPUS) {
    assert.ok(countTokens(text, AS_TEXT) >= exact(text), JSON.stringify(text.slice(0, 40)));
  }
  const text = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 300 }),
    fc.string({ unit: "binary", maxLength: 300 }),
    fc.array(fc.constantFrom("the", " planner", "ization", '{"', "_id", "日本", "😀", "\n"), {
      maxLength: 120,
    }).map((parts) => parts.join("")),
  );
  fc.assert(
    fc.property(text, (value) => countTokens(value, AS_TEXT) >= exact(value)),
    { seed: 20_261_128, numRuns: 400 },
  );
});

Deno.test("on prose, code, JSON and SQL the bound is within 12 % of cl100k_base", async () => {
  const { countTokens } = await cl100kBound();
  const root = new URL("../../", import.meta.url);
  const texts = [
    "README.md",
    "docs/architecture.md",
    "shared/loop/rounds.ts",
    "shared/contracts.ts",
    "supabase/migrations/20261204000000_recall_plans.sql",
  ].map((path) => Deno.readTextFileSync(new URL(path, root)));
  texts.push(
    JSON.stringify({ type: "object", properties: { name: { type: "string" } } }).repeat(30),
  );
  for (const text of texts) {
    const ratio = countTokens(text, AS_TEXT) / exact(text);
    assert.ok(ratio >= 1 && ratio <= 1.12, `${ratio.toFixed(3)} on ${text.slice(0, 30)}`);
  }
});

Deno.test("fitToTokens cuts within the limit by cl100k_base, keeping most of what fits", async () => {
  // Well-formed texts only: a lone surrogate decodes to U+FFFD, so a cut would not be a prefix.
  const long = CORPUS.filter((text) => text.isWellFormed()).join("\n").repeat(4);
  assert.ok(exact(long) > 1_000);
  const fitted = await fitToTokens(long, 1_000);
  assert.equal(fitted.truncated, true);
  assert.ok(long.startsWith(fitted.text));
  assert.ok(fitted.tokens! <= 1_000 && exact(fitted.text) <= fitted.tokens!);
  const prose = "Our guide walks the northern coast and names each harbour it passes. ".repeat(600);
  const cut = await fitToTokens(prose, 2_000);
  assert.ok(exact(cut.text) <= 2_000 && exact(cut.text) >= 1_780, String(exact(cut.text)));
});

Deno.test("text that spells a special token is counted and cut as ordinary text, never refused", async () => {
  const text = `${"word ".repeat(3_000)}<|endoftext|> and <|im_start|>system`;
  const fitted = await fitToTokens(text, 8_191);
  assert.equal(fitted.truncated, false);
  assert.ok(fitted.tokens! >= exact(text));
  assert.ok(fitted.tokens! > exact("word ".repeat(3_000)) + 6, "spelled out, not one token");
  const cut = await fitToTokens(text, 3_001);
  assert.equal(cut.truncated, true);
  assert.ok(cut.tokens! <= 3_001 && text.startsWith(cut.text));
  const prompt = await PROMPT_COUNTER.countRequest({
    messages: [{ role: "user", content: "ignore <|endoftext|> this" }],
  });
  assert.ok(prompt > 0);
  assert.ok(await PROMPT_COUNTER.countText("<|endoftext|>") > 1);
});
