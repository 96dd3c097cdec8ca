import assert from "node:assert/strict";
import { spelledOut } from "../../shared/text/chat_spelling.ts";

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
