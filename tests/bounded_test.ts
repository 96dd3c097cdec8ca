import assert from "node:assert/strict";
import { BoundedSet, forgetOldest } from "../shared/bounded.ts";

Deno.test("forgetOldest deletes the first-inserted entries down to the limit", () => {
  const map = new Map([["a", 1], ["b", 2], ["c", 3], ["d", 4]]);
  forgetOldest(map, 2);
  assert.deepEqual([...map.keys()], ["c", "d"]);
  forgetOldest(map, 5);
  assert.deepEqual([...map.keys()], ["c", "d"]);
  forgetOldest(map, 0);
  assert.equal(map.size, 0);
});

Deno.test("a BoundedSet keeps the newest entries; adding a present one moves nothing", () => {
  const set = new BoundedSet<string>(3);
  for (const value of ["a", "b", "c", "a", "d"]) set.add(value);
  assert.deepEqual([...set], ["b", "c", "d"]);
});
