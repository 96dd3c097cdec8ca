/** The OpenAI embedder against the strict fake: token limits, request limits, usage. */
import assert from "node:assert/strict";
import { encode } from "gpt-tokenizer/encoding/cl100k_base";
import { createOpenAiClient } from "../../shared/adapters/openai/openai_client.ts";
import { fitToTokens } from "../../shared/adapters/openai/embedding_tokens.ts";
import { OpenAiEmbedder } from "../../shared/adapters/openai/openai_embedder.ts";
import { hashingVector } from "../../shared/text/hashing_vector.ts";
import { UsageTotals } from "../../shared/loop/usage.ts";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";

async function withEmbedder(
  fn: (server: FakeOpenAiServer, client: ReturnType<typeof createOpenAiClient>) => Promise<void>,
) {
  const server = FakeOpenAiServer.start();
  try {
    await fn(server, createOpenAiClient({ apiKey: "sk-test", baseUrl: server.baseUrl }));
  } finally {
    await server.close();
  }
}

/** 32,000 characters of digits and words: well over 8,192 cl100k_base tokens. */
const LONG = Array.from({ length: 2_000 }, (_, i) => `${(i * 7_919) % 100_000} `)
  .join("").padEnd(32_000, "x9 ").slice(0, 32_000);

Deno.test("a 32,000-character text is cut to 8,192 tokens and embedded, and its tokens are counted", () =>
  withEmbedder(async (server, client) => {
    assert.ok(encode(LONG).length > 8_192, String(encode(LONG).length));
    const usage = new UsageTotals();
    const [vector] = await new OpenAiEmbedder(client).embed([LONG], { usage });
    assert.equal(vector.length, 1536);
    assert.deepEqual(server.refusals, []);
    const sent = (server.embeddingRequests[0].body.input as string[])[0];
    const tokens = encode(sent).length;
    // The counting tokenizer keeps cl100k_base's first 25,000 ranks, so it splits some numbers the
    // whole encoding keeps in one token: on this text of numbers the cut keeps about 97 %.
    assert.ok(tokens <= 8_192 && tokens >= 7_900, String(tokens));
    assert.ok(LONG.startsWith(sent), "the start of the text is kept");
    assert.equal(usage.total.embeddingTokens, tokens, "the server's count");
    assert.equal(usage.total.modelCalls, 0, "an embedding is not a chat model call");
  }));

Deno.test("short texts are sent as they are", () =>
  withEmbedder(async (server, client) => {
    await new OpenAiEmbedder(client).embed(["café ☕", "x"]);
    assert.deepEqual(server.embeddingRequests[0].body.input, ["café ☕", "x"]);
  }));

Deno.test("a long text that spells <|endoftext|> is cut and embedded as ordinary text", () =>
  withEmbedder(async (server, client) => {
    const text = `${LONG.slice(0, 100)} <|endoftext|> ${LONG}`;
    const [vector] = await new OpenAiEmbedder(client).embed([text]);
    assert.equal(vector.length, 1536);
    assert.deepEqual(server.refusals, []);
    const sent = (server.embeddingRequests[0].body.input as string[])[0];
    assert.ok(sent.includes("<|endoftext|>") && text.startsWith(sent));
  }));

Deno.test("the option models.embeddingMaxTokens's limit is applied instead of the model's", () =>
  withEmbedder(async (server, client) => {
    await new OpenAiEmbedder(client, { maxInputTokens: 100 }).embed([LONG]);
    const sent = (server.embeddingRequests[0].body.input as string[])[0];
    assert.ok(encode(sent).length <= 100);
  }));

Deno.test("more than 2,048 texts, or 300,000 tokens, go in several requests, vectors in order", () =>
  withEmbedder(async (server, client) => {
    const texts = Array.from({ length: 2_050 }, (_, i) => `text ${i}`);
    const vectors = await new OpenAiEmbedder(client).embed(texts);
    assert.equal(server.embeddingRequests.length, 2);
    assert.equal(vectors.length, 2_050);
    assert.deepEqual(vectors[2_049], hashingVector("text 2049"));
    const heavy = Array.from({ length: 40 }, () => LONG);
    assert.equal((await new OpenAiEmbedder(client).embed(heavy)).length, 40);
    assert.deepEqual(server.refusals, []);
  }));

Deno.test("a cut never ends inside a character, and re-encodes within the limit", async () => {
  const text = "🙂é漢字".repeat(5_000);
  for (const limit of [17, 100, 1_001]) {
    const { text: cut, tokens, truncated } = await fitToTokens(text, limit);
    assert.ok(truncated);
    assert.ok(!cut.includes("\uFFFD"));
    // The bound's count (cl100k_bound.ts): never below cl100k_base's.
    assert.ok(encode(cut).length <= tokens! && tokens! <= limit, `${encode(cut).length} ${tokens}`);
    assert.ok(text.startsWith(cut));
  }
});
