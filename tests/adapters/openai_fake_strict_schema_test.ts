/**
 * The fake OpenAI server refuses the strict JSON schemas OpenAI refuses (the
 * rules and limits in tests/fakes/openai_strict_schema.ts, with their
 * sources), with the API's status, param and message.
 */
import assert from "node:assert/strict";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";

/** Runs `fn` with a function posting a chat request whose response format is `schema`. */
async function withFake(fn: (post: Post) => Promise<void>) {
  const server = FakeOpenAiServer.start();
  const post: Post = async (_path, body) => {
    const res = await fetch(`${server.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
  try {
    await fn(post);
  } finally {
    await server.close();
  }
}

type Post = (
  path: string,
  body: Record<string, unknown>,
) => Promise<{ status: number; json: Json }>;

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

function chat(model: string, extra: Record<string, unknown> = {}) {
  return { model, messages: [{ role: "user", content: "Answer in JSON: hello" }], ...extra };
}

function strictFormat(schema: unknown) {
  return chat("gpt-4o", {
    response_format: { type: "json_schema", json_schema: { name: "plan", schema, strict: true } },
  });
}

const good = {
  type: "object",
  properties: {
    name: { type: "string", pattern: "^[a-z]+$" },
    age: { anyOf: [{ type: "integer", minimum: 0 }, { type: "null" }] },
    tags: { type: "array", items: { type: "string" }, maxItems: 3 },
  },
  required: ["name", "age", "tags"],
  additionalProperties: false,
};

Deno.test("a strict schema that breaks the structured-outputs rules is refused with the API's message", () =>
  withFake(async (post) => {
    assert.equal((await post("/chat/completions", strictFormat(good))).status, 200);
    // The same schemas are fine when not strict.
    const cases: [unknown, RegExp][] = [
      [{ anyOf: [good] }, /must be a JSON Schema of 'type: "object"'/],
      [{ type: "array", items: good }, /must be a JSON Schema of 'type: "object"'/],
      [{ ...good, additionalProperties: undefined }, /'additionalProperties' is required/],
      [{ ...good, required: ["name", "age"] }, /including every key in properties. Missing 'tags'/],
      [
        { ...good, properties: { ...good.properties, name: { type: "string", minLength: 1 } } },
        /context=\('properties', 'name'\), 'minLength' is not permitted/,
      ],
      [{ ...good, allOf: [] }, /'allOf' is not permitted/],
      [
        { ...good, properties: { ...good.properties, tags: { type: "object" } } },
        /context=\('properties', 'tags'\), 'additionalProperties' is required/,
      ],
      [nested(11), /11 levels of nesting exceeds the limit of 10 levels/],
      [wide(5_001), /5001 object properties/],
      [
        { ...good, properties: { ...good.properties, age: { type: ["integer", "string"] } } },
        /a list of types must be one type and 'null'/,
      ],
      [
        {
          ...good,
          // A value that is not a string counts as its JSON text: 25,000 numbers, 138,891 characters.
          properties: {
            ...good.properties,
            name: { const: Array.from({ length: 25_000 }, (_, i) => i) },
          },
        },
        /total string length .* is 138\d{3}/,
      ],
    ];
    for (const [schema, message] of cases) {
      const res = await post("/chat/completions", strictFormat(schema));
      assert.equal(res.status, 400, JSON.stringify(schema).slice(0, 200));
      assert.equal(res.json.error.param, "response_format");
      assert.match(res.json.error.message, /^Invalid schema for response_format 'plan': /);
      assert.match(res.json.error.message, message);
      const loose = await post("/chat/completions", {
        ...strictFormat(schema),
        response_format: { type: "json_schema", json_schema: { name: "plan", schema } },
      });
      assert.equal(loose.status, 200);
    }
    assert.equal((await post("/chat/completions", strictFormat(nested(10)))).status, 200);
    // The format's name: a-z, A-Z, 0-9, underscores and dashes, at most 64 (OpenAPI spec).
    for (const name of ["a plan", "x".repeat(65), "plan.v2"]) {
      const named = chat("gpt-4o", {
        response_format: { type: "json_schema", json_schema: { name, schema: good, strict: true } },
      });
      const res = await post("/chat/completions", named);
      assert.equal(res.status, 400, name);
      assert.equal(res.json.error.param, "response_format.json_schema.name");
    }
    assert.equal((await post("/chat/completions", strictFormat(wide(5_000)))).status, 200);
  }));

Deno.test("strict nesting counts every level a value sits at: properties, items, anyOf branches, and references where used", () =>
  withFake(async (post) => {
    const status = async (schema: unknown) =>
      (await post("/chat/completions", strictFormat(schema))).status;
    // Root (1) → value (2) → items (3) → anyOf branch (4) → … : no objects below the root needed.
    assert.equal(await status(root(listsOf(8))), 200, "a string at level 10");
    const refused = await post("/chat/completions", strictFormat(root(listsOf(9))));
    assert.equal(refused.status, 400);
    assert.match(
      refused.json.error.message,
      /'items', 'anyOf', '0'\), 11 levels of nesting exceeds the limit of 10 levels/,
    );

    // A reference counts as its definition where it is used: an object with a property is 2 levels.
    const withRef = (levels: number) => ({
      ...root(listsOf(levels, { $ref: "#/$defs/pair" })),
      $defs: { pair: object({ x: { type: "string" } }) },
    });
    assert.equal(await status(withRef(7)), 200, "the definition's property at level 10");
    assert.equal(await status(withRef(8)), 400, "the same definition one level deeper");

    // Recursion is allowed: a definition is not expanded again inside itself.
    const tree = {
      ...root({ $ref: "#/$defs/node" }),
      $defs: {
        node: object({
          name: { type: "string" },
          children: { type: "array", items: { $ref: "#/$defs/node" } },
        }),
      },
    };
    assert.equal(await status(tree), 200);
  }));

/** A root object with one property `v` holding `value`. */
function root(value: unknown): Record<string, unknown> {
  return object({ v: value });
}

function object(properties: Record<string, unknown>): Record<string, unknown> {
  return {
    type: "object",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

/** `depth` levels of lists and unions (array, then anyOf, alternately) around `leaf`. */
function listsOf(depth: number, leaf: unknown = { type: "string" }): unknown {
  let schema = leaf;
  for (let i = 0; i < depth; i++) {
    schema = i % 2 === 0 ? { anyOf: [schema, { type: "null" }] } : { type: "array", items: schema };
  }
  return schema;
}

function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = {
    type: "object",
    properties: {},
    required: [],
    additionalProperties: false,
  };
  for (let i = 1; i < levels; i++) {
    schema = {
      type: "object",
      properties: { inner: schema },
      required: ["inner"],
      additionalProperties: false,
    };
  }
  return schema;
}

function wide(count: number): Record<string, unknown> {
  const names = Array.from({ length: count }, (_, i) => `p${i}`);
  return {
    type: "object",
    properties: Object.fromEntries(names.map((n) => [n, { type: "boolean" }])),
    required: names,
    additionalProperties: false,
  };
}
