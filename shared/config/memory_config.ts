/**
 * Conversation memory: how much a turn loads, how matches are ranked (hybrid
 * retrieval) and the shape of working memory.
 */
import { DEFAULT_MEMORY_JSON_SCHEMA, memoryShape } from "../memory/working_memory.ts";
import { DEFAULT_MEMORY_OPTIONS, type MemoryOptions } from "../store/sql_conversation_store.ts";
import type { EnvReader } from "./env_reader.ts";

/** How much conversation memory a turn loads, and how matches are ranked. */
export function readMemory(reader: EnvReader): MemoryOptions {
  const d = DEFAULT_MEMORY_OPTIONS;
  const textSearchConfig = reader.string("MCP_LOOP_TEXT_SEARCH_CONFIG") ?? d.textSearchConfig;
  if (!/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/.test(textSearchConfig)) {
    reader.problem(
      `MCP_LOOP_TEXT_SEARCH_CONFIG must name a Postgres text search configuration, like simple or english; got "${textSearchConfig}"`,
    );
  }
  return {
    recentLimit: reader.int("MCP_LOOP_RECENT_LIMIT", { fallback: d.recentLimit, min: 0, max: 100 }),
    matchCount: reader.int("MCP_LOOP_MATCH_COUNT", { fallback: d.matchCount, min: 0, max: 50 }),
    matchThreshold: reader.number("MCP_LOOP_MATCH_THRESHOLD", {
      fallback: d.matchThreshold,
      min: -1,
      max: 1,
    }),
    scope: reader.oneOf("MCP_LOOP_MEMORY_SCOPE", ["session", "user"], d.scope),
    fullTextWeight: reader.number("MCP_LOOP_FULL_TEXT_WEIGHT", {
      fallback: d.fullTextWeight,
      min: 0,
      max: 100,
    }),
    semanticWeight: reader.number("MCP_LOOP_SEMANTIC_WEIGHT", {
      fallback: d.semanticWeight,
      min: 0,
      max: 100,
    }),
    rrfK: reader.int("MCP_LOOP_RRF_K", { fallback: d.rrfK, min: 1, max: 1_000 }),
    textSearchConfig,
  };
}

/** `MCP_LOOP_WORKING_MEMORY_SCHEMA`: the JSON Schema of working memory (default: facts and preferences). */
export function readWorkingMemorySchema(reader: EnvReader): Record<string, unknown> {
  const raw = reader.string("MCP_LOOP_WORKING_MEMORY_SCHEMA");
  if (!raw) return { ...DEFAULT_MEMORY_JSON_SCHEMA };
  const example =
    '{"type":"object","properties":{"name":{"type":"string"},"facts":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}';
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    reader.problem(`MCP_LOOP_WORKING_MEMORY_SCHEMA must be a JSON Schema, like ${example}`);
    return { ...DEFAULT_MEMORY_JSON_SCHEMA };
  }
  const schema = json as Record<string, unknown>;
  if (
    typeof json !== "object" || json === null || Array.isArray(json) ||
    schema.type !== "object" || typeof schema.properties !== "object"
  ) {
    reader.problem(
      `MCP_LOOP_WORKING_MEMORY_SCHEMA must describe an object with properties, like ${example}`,
    );
    return { ...DEFAULT_MEMORY_JSON_SCHEMA };
  }
  try {
    memoryShape(schema);
  } catch (error) {
    reader.problem(
      `MCP_LOOP_WORKING_MEMORY_SCHEMA could not be used: ${(error as Error).message}`,
    );
    return { ...DEFAULT_MEMORY_JSON_SCHEMA };
  }
  return schema;
}
