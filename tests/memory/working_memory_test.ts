import assert from "node:assert/strict";
import { isAppError } from "../../shared/errors.ts";
import {
  addFact,
  checkMemory,
  forgetFromMemory,
  MAX_MEMORY_CHARS,
  memoryShape,
  memoryStatements,
  mergeMemory,
  updateMemory,
} from "../../shared/memory/working_memory.ts";
import { ANONYMOUS } from "../../shared/ports.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";

Deno.test("merge semantics: objects merged field by field, arrays and values replaced, null removes", () => {
  const before = {
    name: "Sam",
    location: { city: "Berlin", timezone: "CET" },
    facts: ["a", "b"],
    pets: 1,
  };
  const after = mergeMemory(before, {
    location: { city: "Lisbon" },
    facts: ["c"],
    pets: null,
    language: "Portuguese",
  });
  assert.deepEqual(after, {
    name: "Sam",
    location: { city: "Lisbon", timezone: "CET" },
    facts: ["c"],
    language: "Portuguese",
  });
  assert.deepEqual(before.location, { city: "Berlin", timezone: "CET" }, "the input is unchanged");
});

Deno.test("a fact is added once, whatever its case and spacing", () => {
  const once = addFact({}, "  My favourite colour is teal ");
  assert.deepEqual(once, { facts: ["My favourite colour is teal"] });
  assert.equal(addFact(once, "my favourite colour is TEAL"), once);
});

Deno.test("forgetting by words drops every item holding all of them; by key, the field", () => {
  const memory = {
    facts: ["My favourite colour is teal", "My favourite food is bacalhau", "I live in Lisbon"],
    preferences: ["Answer in Portuguese"],
    profile: { favourite_colour: "teal", name: "Sam" },
  };
  const colour = forgetFromMemory(memory, { what: "my favourite colour" });
  assert.deepEqual(colour.document, {
    facts: ["My favourite food is bacalhau", "I live in Lisbon"],
    preferences: ["Answer in Portuguese"],
    profile: { name: "Sam" },
  });
  assert.deepEqual(colour.removed, [
    "My favourite colour is teal",
    "profile.favourite_colour: teal",
  ]);
  const keys = forgetFromMemory(memory, { keys: ["preferences", "profile.name", "no.such"] });
  assert.deepEqual(keys.removed, ["preferences", "profile.name"]);
  assert.deepEqual(Object.keys(keys.document), ["facts", "profile"]);
  assert.deepEqual(forgetFromMemory(memory, { what: "the" }).removed, [], "no content words");
});

Deno.test("forgetting 'my' thing leaves someone else's", () => {
  const memory = {
    facts: ["my dentist is Dr Osei", "my brother's dentist is in Leeds", "Kofi's dentist retired"],
  };
  assert.deepEqual(forgetFromMemory(memory, { what: "my dentist" }).removed, [
    "my dentist is Dr Osei",
  ]);
  // Named, theirs goes too.
  assert.deepEqual(forgetFromMemory(memory, { what: "my brother's dentist" }).removed, [
    "my brother's dentist is in Leeds",
  ]);
  assert.deepEqual(forgetFromMemory(memory, { what: "dentist" }).removed, memory.facts);
});

Deno.test("the default shape takes facts and preferences; an update may leave out or null any field", () => {
  const shape = memoryShape();
  assert.equal(shape.hasFacts, true);
  assert.ok(shape.document.safeParse({ facts: ["x"], preferences: [] }).success);
  assert.ok(!shape.document.safeParse({ facts: "x" }).success);
  assert.ok(!shape.document.safeParse({ other: 1 }).success, "closed: no other fields");
  assert.ok(shape.patch.safeParse({ preferences: null }).success);
  assert.ok(shape.patch.safeParse({}).success);
  const custom = memoryShape({
    type: "object",
    properties: {
      name: { type: "string" },
      address: {
        type: "object",
        properties: { city: { type: "string" }, zip: { type: "string" } },
        required: ["city", "zip"],
        additionalProperties: false,
      },
    },
    required: ["name"],
    additionalProperties: false,
  });
  assert.equal(custom.hasFacts, false);
  assert.ok(custom.patch.safeParse({ address: { zip: "1000" } }).success, "partial at every depth");
  assert.ok(!custom.document.safeParse({ address: { zip: "1000" } }).success);
});

Deno.test("a document past its schema or its size is refused, saying what to do", () => {
  const shape = memoryShape();
  const full = { facts: Array.from({ length: 51 }, (_, i) => `fact ${i}`) };
  assert.throws(() => checkMemory(shape, full), /facts: .*forget something first/);
  const loose = memoryShape({ type: "object", properties: { notes: { type: "string" } } });
  assert.throws(
    () => checkMemory(loose, { notes: "x".repeat(MAX_MEMORY_CHARS) }),
    (e) => isAppError(e) && /over its limit of 8000/.test(e.message),
  );
});

Deno.test("an update made over a stale version is made again over the new one", async () => {
  const store = new MemoryConversationStore();
  let raced = false;
  const racing = {
    getMemory: store.getMemory.bind(store),
    putMemory: async (caller: typeof ANONYMOUS, document: Record<string, unknown>, v: number) => {
      if (!raced) {
        raced = true; // someone else writes first
        await store.putMemory(caller, { facts: ["written meanwhile"] }, v);
      }
      return store.putMemory(caller, document, v);
    },
  };
  const { document, changed } = await updateMemory(
    { store: racing, caller: ANONYMOUS, shape: memoryShape() },
    (doc) => ({ document: addFact(doc, "mine"), report: undefined }),
  );
  assert.equal(changed, true);
  assert.deepEqual(document, { facts: ["written meanwhile", "mine"] });
  assert.deepEqual((await store.getMemory(ANONYMOUS)).document, document);
});

Deno.test("memory statements are the list items and the fields' values, for recall", () => {
  assert.deepEqual(
    memoryStatements({ facts: ["likes tea"], profile: { home_town: "Porto", age: 40 } }),
    ["likes tea", "home town: Porto", "age: 40"],
  );
  assert.deepEqual(memoryStatements(undefined), []);
});
