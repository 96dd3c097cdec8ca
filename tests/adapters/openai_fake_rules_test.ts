/**
 * The fake OpenAI server refuses what the real API refuses (the rules in
 * tests/fakes/openai_api_rules.ts, with their sources; strict schemas' in
 * openai_fake_strict_schema_test.ts), so an adapter that passes against it
 * sends what OpenAI accepts.
 */
import assert from "node:assert/strict";
import { encode } from "gpt-tokenizer/encoding/cl100k_base";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";

async function withFake(fn: (post: Post, server: FakeOpenAiServer) => Promise<void>) {
  const server = FakeOpenAiServer.start();
  const post: Post = async (path, body) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
  try {
    await fn(post, server);
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

const messages = [{ role: "user", content: "Answer in JSON: hello" }];

function chat(model: string, extra: Record<string, unknown> = {}) {
  return { model, messages, ...extra };
}

Deno.test("the fake refuses max_tokens and a non-default temperature for reasoning models, with the API's param and code", () =>
  withFake(async (post) => {
    for (const model of ["gpt-5", "gpt-5-mini", "gpt-5.1", "o3", "o4-mini", "o1"]) {
      const maxTokens = await post("/chat/completions", chat(model, { max_tokens: 100 }));
      assert.equal(maxTokens.status, 400, model);
      assert.deepEqual(maxTokens.json.error, {
        message:
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        type: "invalid_request_error",
        param: "max_tokens",
        code: "unsupported_parameter",
      });
      const temperature = await post("/chat/completions", chat(model, { temperature: 0 }));
      assert.equal(temperature.status, 400);
      assert.equal(temperature.json.error.param, "temperature");
      assert.equal(temperature.json.error.code, "unsupported_value");
      assert.match(temperature.json.error.message, /Only the default \(1\) value is supported/);
      const topP = await post("/chat/completions", chat(model, { top_p: 0.5 }));
      assert.equal(topP.json.error.param, "top_p");
      const ok = await post(
        "/chat/completions",
        chat(model, { max_completion_tokens: 2_000, temperature: 1 }),
      );
      assert.equal(ok.status, 200, JSON.stringify(ok.json));
    }
  }));

Deno.test("the fake takes temperature and max_tokens from gpt-4o-class models but refuses reasoning_effort", () =>
  withFake(async (post) => {
    for (const model of ["gpt-4o", "gpt-4o-mini", "gpt-4.1"]) {
      const ok = await post("/chat/completions", chat(model, { temperature: 0, max_tokens: 50 }));
      assert.equal(ok.status, 200, JSON.stringify(ok.json));
      const effort = await post("/chat/completions", chat(model, { reasoning_effort: "low" }));
      assert.equal(effort.status, 400);
      assert.equal(effort.json.error.param, "reasoning_effort");
      assert.equal(effort.json.error.code, "unsupported_parameter");
    }
    const chatLatest = await post(
      "/chat/completions",
      chat("gpt-5-chat-latest", { reasoning_effort: "low" }),
    );
    assert.equal(chatLatest.json.error.param, "reasoning_effort");
  }));

Deno.test("the fake checks reasoning_effort values per model family", () =>
  withFake(async (post) => {
    assert.equal(
      (await post("/chat/completions", chat("o3", { reasoning_effort: "low" }))).status,
      200,
    );
    const minimal = await post("/chat/completions", chat("o3", { reasoning_effort: "minimal" }));
    assert.equal(minimal.json.error.code, "unsupported_value");
    assert.equal(
      (await post("/chat/completions", chat("gpt-5", { reasoning_effort: "minimal" }))).status,
      200,
    );
    const none = await post("/chat/completions", chat("gpt-5", { reasoning_effort: "none" }));
    assert.equal(none.json.error.code, "unsupported_value");
    const bogus = await post("/chat/completions", chat("gpt-5.1", { reasoning_effort: "turbo" }));
    assert.equal(bogus.json.error.code, "invalid_value");
  }));

Deno.test("the fake refuses unknown parameters and models, as the API does", () =>
  withFake(async (post) => {
    const unknown = await post("/chat/completions", chat("gpt-4o", { max_output_tokens: 10 }));
    assert.deepEqual([unknown.status, unknown.json.error.message, unknown.json.error.param], [
      400,
      "Unrecognized request argument supplied: max_output_tokens",
      null,
    ]);
    const model = await post("/chat/completions", chat("llama3.1"));
    assert.equal(model.status, 404);
    assert.equal(model.json.error.code, "model_not_found");
    const embedding = await post("/embeddings", {
      model: "text-embedding-3-small",
      input: "x",
      truncate: true,
    });
    assert.equal(embedding.status, 400);
    assert.match(embedding.json.error.message, /Unrecognized request argument supplied: truncate/);
  }));

Deno.test("JSON mode needs the word JSON in the messages", () =>
  withFake(async (post) => {
    const refused = await post("/chat/completions", {
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }],
      response_format: { type: "json_object" },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error.param, "messages");
  }));

Deno.test("the fake reports real token counts, reasoning tokens within max_completion_tokens, and cached prefixes", () =>
  withFake(async (post, server) => {
    const long = "The quick brown fox jumps over the lazy dog. ".repeat(200);
    const first = { role: "system", content: long };
    server.chatReplies.push("one two three", "[]", "a long answer that will not fit");
    const a = await post("/chat/completions", {
      model: "gpt-5",
      messages: [first, { role: "user", content: "JSON please" }],
      reasoning_effort: "low",
      max_completion_tokens: 1_000,
    });
    assert.equal(a.status, 200);
    assert.equal(a.json.choices[0].message.content, "one two three");
    assert.equal(a.json.usage.completion_tokens_details.reasoning_tokens, 128);
    assert.equal(a.json.usage.completion_tokens, 128 + 3);
    assert.ok(a.json.usage.prompt_tokens > 1_800, String(a.json.usage.prompt_tokens));
    assert.equal(a.json.usage.prompt_tokens_details.cached_tokens, 0, "nothing cached yet");

    const b = await post("/chat/completions", {
      model: "gpt-5",
      messages: [first, { role: "user", content: "JSON please, again" }],
      reasoning_effort: "low",
    });
    const cached = b.json.usage.prompt_tokens_details.cached_tokens;
    assert.ok(cached >= 1_024 && (cached - 1_024) % 128 === 0, String(cached));
    assert.ok(cached <= b.json.usage.prompt_tokens);

    // Reasoning tokens count against max_completion_tokens: too small a budget leaves no answer.
    const c = await post("/chat/completions", {
      model: "gpt-5",
      messages,
      max_completion_tokens: 100,
    });
    assert.equal(c.json.choices[0].finish_reason, "length");
    assert.equal(c.json.choices[0].message.content, "");
    assert.equal(c.json.usage.completion_tokens, 100);
  }));

Deno.test("the fake refuses embedding inputs over 8,192 cl100k_base tokens, over 2,048 inputs or 300,000 tokens, and dimensions where unsupported", () =>
  withFake(async (post) => {
    const exactly = `hello${" hello".repeat(8_191)}`;
    assert.equal(encode(exactly).length, 8_192);
    const ok = await post("/embeddings", { model: "text-embedding-3-small", input: [exactly] });
    assert.equal(ok.status, 200);
    assert.equal(ok.json.usage.prompt_tokens, 8_192);

    const over = await post("/embeddings", {
      model: "text-embedding-3-small",
      input: [`${exactly} hello`],
    });
    assert.equal(over.status, 400);
    assert.equal(
      over.json.error.message,
      "Invalid 'input': maximum context length is 8192 tokens.",
    );

    const many = await post("/embeddings", {
      model: "text-embedding-3-small",
      input: new Array(2_049).fill("x"),
    });
    assert.equal(many.status, 400);
    assert.equal(many.json.error.param, "input");

    const heavy = await post("/embeddings", {
      model: "text-embedding-3-small",
      input: new Array(37).fill(exactly),
    });
    assert.equal(heavy.status, 400);
    assert.equal(heavy.json.error.code, "max_tokens_per_request");

    const ada = await post("/embeddings", {
      model: "text-embedding-ada-002",
      input: "x",
      dimensions: 512,
    });
    assert.equal(ada.status, 400);
    assert.match(ada.json.error.message, /does not support specifying dimensions/);
    const large = await post("/embeddings", {
      model: "text-embedding-3-large",
      input: "x",
      dimensions: 512,
    });
    assert.equal(large.json.data[0].embedding.length, 512);
  }));
