import assert from "node:assert/strict";
import { createOpenAiClient } from "../../shared/adapters/openai/openai_client.ts";
import { OpenAiChatModel } from "../../shared/adapters/openai/openai_chat_model.ts";
import { OpenAiEmbedder } from "../../shared/adapters/openai/openai_embedder.ts";
import { isAppError } from "../../shared/errors.ts";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";

const KEY = "sk-test-0123456789abcdefSECRET";

async function withServer(fn: (server: FakeOpenAiServer) => Promise<void>) {
  const server = FakeOpenAiServer.start();
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

Deno.test("the embedder posts the texts to /embeddings with its model and returns one vector per text", () =>
  withServer(async (server) => {
    const embedder = new OpenAiEmbedder(
      createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl }),
    );
    const vectors = await embedder.embed(["first", "second"]);
    assert.equal(vectors.length, 2);
    assert.equal(vectors[0].length, 1536);
    const [request] = server.embeddingRequests;
    assert.equal(request.path, "/v1/embeddings");
    assert.deepEqual(request.body, {
      model: "text-embedding-3-small",
      input: ["first", "second"],
      encoding_format: "float",
    });
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    assert.equal(embedder.model, "text-embedding-3-small");
  }));

Deno.test("the embedder can ask for fewer dimensions and refuses vectors it cannot store", () =>
  withServer(async (server) => {
    const client = createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl });
    await new OpenAiEmbedder(client, { model: "text-embedding-3-large", dimensions: 1024 }).embed([
      "x",
    ]);
    assert.equal(server.embeddingRequests[0].body.dimensions, 1024);
    server.embeddingReplies.push({
      status: 200,
      body: { object: "list", data: [{ index: 0, embedding: new Array(3072).fill(0.1) }] },
    });
    await assert.rejects(new OpenAiEmbedder(client).embed(["x"]), /3072 dimensions; at most 1536/);
  }));

Deno.test("to another OpenAI-compatible server the chat model sends model, messages, temperature 0.3, max_tokens 1000 and a JSON schema format", () =>
  withServer(async (server) => {
    server.chatReplies.push('{"plan": []}');
    const model = new OpenAiChatModel(createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl }));
    const { text, usage } = await model.complete({
      messages: [{ role: "system", content: "s" }, { role: "user", content: "u" }],
      jsonSchema: { name: "plan", schema: { type: "object" } },
    });
    assert.equal(text, '{"plan": []}');
    // The server's token counts (o200k_base, the schema included) come back for the run's usage.
    assert.deepEqual(usage, {
      promptTokens: 37,
      completionTokens: 5,
      cachedTokens: 0,
      model: "gpt-4o",
    });
    assert.deepEqual(server.chatRequests[0].body, {
      model: "gpt-4o",
      messages: [{ role: "system", content: "s" }, { role: "user", content: "u" }],
      temperature: 0.3,
      max_tokens: 1000,
      response_format: {
        type: "json_schema",
        json_schema: { name: "plan", schema: { type: "object" }, strict: false },
      },
    });
  }));

Deno.test("a server that refuses the JSON schema format gets JSON mode, then no format", () =>
  withServer(async (server) => {
    const refuse = {
      status: 400,
      body: { error: { message: "response_format json_schema is not supported" } },
    };
    server.chatReplies.push(refuse, refuse, "[]", "[]");
    const model = new OpenAiChatModel(createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl }));
    const request = {
      messages: [{ role: "user" as const, content: "JSON please" }],
      jsonSchema: { name: "p", schema: {} },
    };
    assert.equal((await model.complete(request)).text, "[]");
    assert.deepEqual(
      server.chatRequests.map((r) =>
        (r.body.response_format as { type?: string } | undefined)?.type
      ),
      ["json_schema", "json_object", undefined],
    );
    assert.equal(model.responseFormat, "none");
    await model.complete(request);
    assert.equal(
      server.chatRequests[3].body.response_format,
      undefined,
      "the downgrade is remembered",
    );
  }));

Deno.test("a 500 is retried (as the SDK retried it) and then succeeds", () =>
  withServer(async (server) => {
    server.chatReplies.push({ status: 500 }, "ok");
    const model = new OpenAiChatModel(createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl }));
    assert.equal(
      (await model.complete({ messages: [{ role: "user", content: "hi" }] })).text,
      "ok",
    );
    assert.equal(server.chatRequests.length, 2);
  }));

Deno.test("errors become MODEL_UNAVAILABLE without the API key in the message", () =>
  withServer(async (server) => {
    server.chatReplies.push({
      status: 401,
      body: {
        error: { message: `Incorrect API key provided: ${KEY}. You can find your API key at ...` },
      },
    });
    const model = new OpenAiChatModel(
      createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl, maxRetries: 0 }),
    );
    await assert.rejects(model.complete({ messages: [{ role: "user", content: "hi" }] }), (e) => {
      assert.ok(isAppError(e));
      assert.equal(e.code, "MODEL_UNAVAILABLE");
      assert.match(e.message, /answered 401.*check OPENAI_API_KEY/);
      assert.doesNotMatch(e.message, /SECRET|0123456789abcdef/);
      return true;
    });
  }));

Deno.test("an unreachable server is MODEL_UNAVAILABLE naming the base URL", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const model = new OpenAiChatModel(
    createOpenAiClient({ apiKey: KEY, baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 0 }),
  );
  await assert.rejects(model.complete({ messages: [{ role: "user", content: "hi" }] }), (e) => {
    assert.ok(isAppError(e));
    assert.equal(e.code, "MODEL_UNAVAILABLE");
    assert.match(e.message, new RegExp(`127\\.0\\.0\\.1:${port}/v1 is unreachable`));
    return true;
  });
});

Deno.test("an aborted signal stops a hanging call at once (the request deadline)", () =>
  withServer(async (server) => {
    server.chatReplies.push({ hang: true });
    const model = new OpenAiChatModel(createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl }));
    const controller = new AbortController();
    const call = model.complete({
      messages: [{ role: "user", content: "hi" }],
      signal: controller.signal,
    });
    await server.untilHung();
    controller.abort(new Error("deadline"));
    await assert.rejects(
      call,
      (e) => (e as Error).name === "APIUserAbortError" || /abort/i.test(String(e)),
    );
    assert.equal(server.chatRequests.length, 1, "no retry after an abort");
  }));

/** A 400 as OpenAI words it. */
function refusal(message: string, param: string | null, code: string | null) {
  return { status: 400, body: { error: { message, type: "invalid_request_error", param, code } } };
}

const ask = {
  messages: [{ role: "user" as const, content: "Answer in JSON" }],
  jsonSchema: { name: "p", schema: { type: "object" } },
};

Deno.test("OpenAI's own API gets max_completion_tokens", () =>
  withServer(async (server) => {
    const client = createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl });
    await new OpenAiChatModel(client, { server: "openai" }).complete(ask);
    const body = server.chatRequests[0].body;
    assert.equal(body.max_completion_tokens, 1000);
    assert.equal(body.max_tokens, undefined);
    assert.equal(body.temperature, 0.3);
  }));

Deno.test("a server that refuses max_tokens by its param gets max_completion_tokens, for later calls too", () =>
  withServer(async (server) => {
    server.chatReplies.push(
      refusal(
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        "max_tokens",
        "unsupported_parameter",
      ),
      "first",
      "second",
    );
    const model = new OpenAiChatModel(createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl }));
    assert.equal((await model.complete(ask)).text, "first");
    assert.equal((await model.complete(ask)).text, "second");
    assert.deepEqual(
      server.chatRequests.map((r) => [r.body.max_tokens, r.body.max_completion_tokens]),
      [[1000, undefined], [undefined, 1000], [undefined, 1000]],
    );
    assert.equal(model.responseFormat, "json_schema", "not taken for a refused format");
  }));

Deno.test("a server that leaves param empty but names an unrecognized argument gets the other token parameter", () =>
  withServer(async (server) => {
    server.chatReplies.push(
      refusal("Unrecognized request argument supplied: max_completion_tokens", null, null),
      "ok",
    );
    const client = createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl });
    const model = new OpenAiChatModel(client, { server: "openai" });
    assert.equal((await model.complete(ask)).text, "ok");
    assert.equal(server.chatRequests[1].body.max_tokens, 1000);
  }));

Deno.test("a temperature the server refuses is dropped once and not sent again; the format stays", () =>
  withServer(async (server) => {
    server.chatReplies.push(
      refusal(
        "Unsupported value: 'temperature' does not support 0.3 with this model. Only the default (1) value is supported.",
        "temperature",
        "unsupported_value",
      ),
      "a",
      "b",
    );
    const model = new OpenAiChatModel(createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl }));
    await model.complete(ask);
    await model.complete({ ...ask, temperature: 0 });
    assert.deepEqual(server.chatRequests.map((r) => r.body.temperature), [
      0.3,
      undefined,
      undefined,
    ]);
    assert.ok(server.chatRequests.every((r) => r.body.response_format !== undefined));
  }));

Deno.test("a 400 about another parameter is not taken for a refused response format", () =>
  withServer(async (server) => {
    server.chatReplies.push(
      refusal(
        "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        "messages",
        null,
      ),
    );
    const model = new OpenAiChatModel(
      createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl, maxRetries: 0 }),
    );
    await assert.rejects(model.complete(ask), /answered 400/);
    assert.equal(server.chatRequests.length, 1);
    assert.equal(model.responseFormat, "json_schema");
  }));

Deno.test("an attempt past the client's timeout is retried, then MODEL_UNAVAILABLE saying the server did not answer in time", () =>
  withServer(async (server) => {
    server.chatReplies.push({ hang: true }, { hang: true });
    const model = new OpenAiChatModel(
      createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl, timeoutMs: 50, maxRetries: 1 }),
    );
    await assert.rejects(
      model.complete({ messages: [{ role: "user", content: "hi" }] }),
      /did not answer in time/,
    );
    assert.equal(server.chatRequests.length, 2);
  }));

Deno.test("the server's x-should-retry decides: false is not retried, true retries even a 400", () =>
  withServer(async (server) => {
    server.chatReplies.push(
      { status: 503, headers: { "x-should-retry": "false" } },
      { status: 400, headers: { "x-should-retry": "true" } },
      "ok",
    );
    const client = createOpenAiClient({ apiKey: KEY, baseUrl: server.baseUrl });
    const model = new OpenAiChatModel(client);
    await assert.rejects(model.complete({ messages: [{ role: "user", content: "a" }] }), /503/);
    assert.equal(server.chatRequests.length, 1);
    assert.equal((await model.complete({ messages: [{ role: "user", content: "b" }] })).text, "ok");
    assert.equal(server.chatRequests.length, 3);
  }));
