import assert from "node:assert/strict";
import { asTyped, spelledOut } from "../../shared/text/chat_spelling.ts";

Deno.test("chat shorthand is spelled out word by word, any case", () => {
  assert.equal(spelledOut("Pls wipe ur notes, thx"), "please wipe your notes, thanks");
  assert.equal(spelledOut("can U delete this convo?"), "can you delete this conversation?");
  assert.equal(spelledOut("Rememeber that my tiem is short"), "remember that my time is short");
});

Deno.test("shorthand inside another word, an abbreviation or a contraction stays", () => {
  for (
    const text of ["the U.S. time", "I'm in the U.K.", "a U2 song", "u'll see", "plsql", "thxx"]
  ) {
    assert.equal(spelledOut(text), text);
  }
});

Deno.test("a part of the spelled-out text maps back to what was typed", () => {
  const typed = "pls rememeber that my convo code is thx9, ur turn";
  assert.equal(
    asTyped(typed, "my conversation code is thx9, your turn"),
    "my convo code is thx9, ur turn",
  );
  assert.equal(asTyped(typed, "code is thx9"), "code is thx9");
  // Not in the spelled-out text: as given.
  assert.equal(asTyped(typed, "something else"), "something else");
});

Deno.test("laughs of any length are one word; 'r' is 'are' only before you, we or they", () => {
  assert.equal(spelledOut("hahaha ok"), "haha ok");
  assert.equal(spelledOut("lmaooo, loool"), "lol, lol");
  assert.equal(spelledOut("how r u"), "how are you");
  assert.equal(spelledOut("r u there"), "are you there");
  for (const text of ["I use R for stats", "plan r&d", "hahahaX", "lolly"]) {
    assert.equal(spelledOut(text), text);
  }
});

Deno.test("a chat word drawn out is the word; an id or another word ending in a run of letters stays", () => {
  assert.equal(spelledOut("heyyy, sooo cool"), "hey, so cool");
  for (const text of ["loop 5093baaa", "abcdefff", "brrr", "zzz"]) {
    assert.equal(spelledOut(text), text);
  }
});
