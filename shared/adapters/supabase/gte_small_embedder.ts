/**
 * `Embedder` on Supabase's built-in `gte-small` model (`Supabase.ai.Session`),
 * available only inside Supabase's edge runtime. Its 384-dimension vectors are
 * zero-padded to 1536 when stored (cosine is unchanged) and tagged
 * `supabase/gte-small`, so they are never compared with other models' vectors.
 */
import { AppError } from "../../errors.ts";
import type { Embedder } from "../../ports.ts";

/** The part of `Supabase.ai.Session` used here. */
export interface AiSession {
  run(input: string, options: { mean_pool: boolean; normalize: boolean }): Promise<unknown>;
}

/** Creates a session for a model name. */
export type AiSessionFactory = (model: string) => AiSession;

/** The edge runtime's session factory, if this runs inside it. */
export function edgeRuntimeSessionFactory(): AiSessionFactory | undefined {
  const supabase =
    (globalThis as { Supabase?: { ai?: { Session?: new (model: string) => AiSession } } })
      .Supabase;
  const Session = supabase?.ai?.Session;
  return Session ? (model) => new Session(model) : undefined;
}

/** Embeds with `gte-small` through the edge runtime. */
export class GteSmallEmbedder implements Embedder {
  readonly model = "supabase/gte-small";
  readonly dimensions = 384;
  readonly #session: AiSession;

  constructor(factory: AiSessionFactory | undefined = edgeRuntimeSessionFactory()) {
    if (!factory) {
      throw new AppError(
        "CONFIG_INVALID",
        "MCP_LOOP_EMBEDDER=gte-small works only inside Supabase's edge runtime (Supabase.ai.Session is missing)",
      );
    }
    this.#session = factory("gte-small");
  }

  async embed(texts: string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    for (const text of texts) {
      const output = await this.#session.run(text, { mean_pool: true, normalize: true });
      const vector = Array.from(output as ArrayLike<number>);
      if (vector.length !== this.dimensions) {
        throw new AppError(
          "MODEL_UNAVAILABLE",
          `gte-small returned ${vector.length} dimensions, expected 384`,
        );
      }
      vectors.push(vector);
    }
    return vectors;
  }
}
