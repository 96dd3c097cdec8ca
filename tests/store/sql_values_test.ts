import assert from "node:assert/strict";
import { toJsonb, toSafeText, toVectorLiteral } from "../../shared/store/sql_values.ts";

Deno.test("toJsonb writes plain JSON, and makes NUL and lone surrogates safe for Postgres", () => {
  assert.equal(toJsonb({ a: 1, b: "x" }), '{"a":1,"b":"x"}');
  assert.equal(toJsonb(undefined), "null");
  assert.equal(toJsonb({ s: "a\u0000b" }), '{"s":"a\uFFFDb"}');
  assert.equal(toJsonb({ s: "x\uD800y" }), '{"s":"x\uFFFDy"}');
  assert.equal(toJsonb({ s: "😀" }), '{"s":"😀"}', "valid pairs are kept");
  assert.equal(toJsonb({ n: 10n }), '{"n":"10"}');
});

Deno.test("toJsonb replaces a value over the size limit by a preview", () => {
  const big = toJsonb({ s: "x".repeat(100) }, 50);
  assert.deepEqual(Object.keys(JSON.parse(big)), ["truncated", "chars", "preview"]);
});

Deno.test("toSafeText and toVectorLiteral", () => {
  assert.equal(toSafeText("ok"), "ok");
  assert.equal(toVectorLiteral([0.5]).split(",").length, 1536);
  assert.throws(() => toVectorLiteral(new Array(1537).fill(0)), /at most 1536/);
  assert.throws(() => toVectorLiteral([NaN]), /non-finite/);
});
