import assert from "node:assert/strict";
import { GteSmallEmbedder } from "../../shared/adapters/supabase/gte_small_embedder.ts";
import { toVectorLiteral } from "../../shared/store/sql_values.ts";

/** A stand-in for Supabase.ai.Session that records its calls. */
function fakeSessions() {
  const calls: { model: string; input: string; options: unknown }[] = [];
  const factory = (model: string) => ({
    run: (input: string, options: unknown) => {
      calls.push({ model, input, options });
      return Promise.resolve(new Float32Array(384).fill(0.05));
    },
  });
  return { factory, calls };
}

Deno.test("gte-small embeds through Supabase.ai.Session with mean pooling and normalisation", async () => {
  const { factory, calls } = fakeSessions();
  const embedder = new GteSmallEmbedder(factory);
  const [vector] = await embedder.embed(["hello"]);
  assert.equal(vector.length, 384);
  assert.deepEqual(calls, [{
    model: "gte-small",
    input: "hello",
    options: { mean_pool: true, normalize: true },
  }]);
  assert.equal(embedder.model, "supabase/gte-small");
  assert.equal(toVectorLiteral(vector).split(",").length, 1536, "stored zero-padded to 1536");
});

Deno.test("gte-small outside Supabase's edge runtime is a clear configuration error", () => {
  assert.throws(() => new GteSmallEmbedder(undefined), /only inside Supabase's edge runtime/);
});
