/**
 * Conversation memory: how much a turn loads, how matches are ranked (hybrid
 * retrieval) and the shape of working memory.
 */
import { DEFAULT_MEMORY_JSON_SCHEMA, memoryShape } from "../memory/working_memory.ts";
import { DEFAULT_MEMORY_OPTIONS, type MemoryOptions } from "../store/sql_conversation_store.ts";
import type { ConfigOptions } from "./config_options.ts";
import type { EnvReader } from "./env_reader.ts";

/** How much conversation memory a turn loads, and how matches are ranked (options `memory.*`). */
export function readMemory(
  reader: EnvReader,
  options: ConfigOptions["memory"] = {},
): MemoryOptions {
  const d = DEFAULT_MEMORY_OPTIONS;
  const textSearchConfig = options.textSearchConfig ?? d.textSearchConfig;
  if (!/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/.test(textSearchConfig)) {
    reader.problem(
      `option memory.textSearchConfig must name a Postgres text search configuration, like simple or english, or be auto; got "${textSearchConfig}"`,
    );
  }
  const int = (name: keyof MemoryOptions, min: number, max: number) =>
    reader.option(`memory.${name}`, options[name] as number | undefined, {
      fallback: d[name] as number,
      min,
      max,
      integer: true,
    });
  const number = (name: keyof MemoryOptions, min: number, max: number) =>
    reader.option(`memory.${name}`, options[name] as number | undefined, {
      fallback: d[name] as number,
      min,
      max,
    });
  return {
    recentLimit: int("recentLimit", 0, 100),
    matchCount: int("matchCount", 0, 50),
    matchThreshold: number("matchThreshold", -1, 1),
    scope: options.scope ?? d.scope,
    fullTextWeight: number("fullTextWeight", 0, 100),
    semanticWeight: number("semanticWeight", 0, 100),
    rrfK: int("rrfK", 1, 1_000),
    ...(options.semanticWeights ? { semanticWeights: { ...options.semanticWeights } } : {}),
    textSearchConfig,
  };
}

/** Option `workingMemorySchema`: the JSON Schema of working memory (default: facts and preferences). */
export function readWorkingMemorySchema(
  reader: EnvReader,
  schema: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (!schema) return { ...DEFAULT_MEMORY_JSON_SCHEMA };
  const example =
    '{"type":"object","properties":{"name":{"type":"string"},"facts":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}';
  if (schema.type !== "object" || typeof schema.properties !== "object") {
    reader.problem(
      `option workingMemorySchema must describe an object with properties, like ${example}`,
    );
    return { ...DEFAULT_MEMORY_JSON_SCHEMA };
  }
  try {
    memoryShape(schema);
  } catch (error) {
    reader.problem(`option workingMemorySchema could not be used: ${(error as Error).message}`);
    return { ...DEFAULT_MEMORY_JSON_SCHEMA };
  }
  return schema;
}
