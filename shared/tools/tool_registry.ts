/**
 * The registry of tools: filled by the composition root, read by the loop's
 * planner and executor and by the MCP server. Adding a tool never changes loop
 * code.
 */
import { takesNoOtherKeys } from "./tool_args.ts";
import { z } from "zod";
import { AppError } from "../errors.ts";
import { CATALOG_FENCE } from "../planner/untrusted_data.ts";
import type { PlannerTool } from "../ports.ts";
import { TOOL_NAME_PATTERN, type ToolDefinition } from "./tool.ts";

/** A registered tool with its derived JSON Schemas. */
export interface RegisteredTool extends ToolDefinition {
  /** JSON Schema of the args (object), as planners and MCP clients see it. */
  readonly inputSchema: Record<string, unknown>;
  /** JSON Schema of the declared output, when there is one. */
  readonly outputJsonSchema?: Record<string, unknown>;
}

/** Holds tools by name. */
export class ToolRegistry {
  #tools = new Map<string, RegisteredTool>();
  #sources = new Map<string, string>();
  #cache = new Map<string, unknown>();
  #listeners = new Set<() => void>();

  /**
   * Adds a tool. The name must follow MCP's rule and be unused; the args schema
   * must describe an object.
   *
   * @example
   * ```ts
   * registry.register({
   *   name: "mock_tool_a",
   *   description: "Mock A",
   *   argsSchema: z.object({ foo: z.string() }),
   *   run: ({ args }) => `ran A with ${args.foo}`,
   * });
   * ```
   */
  register<S extends z.ZodType, O>(
    definition: ToolDefinition<S, O>,
    { source = "the application" }: { source?: string } = {},
  ): void {
    const { name } = definition;
    if (!TOOL_NAME_PATTERN.test(name)) {
      throw new AppError(
        "CONFIG_INVALID",
        `Cannot register tool "${name}": a name must match ${TOOL_NAME_PATTERN} (letters, digits, "_", "." or "-", at most 64)`,
      );
    }
    if (this.#tools.has(name)) {
      throw new AppError(
        "CONFIG_INVALID",
        `Cannot register tool "${name}" from ${source}: ${
          this.#sources.get(name)
        } already registers a tool with that name; rename one of them`,
      );
    }
    const inputSchema = definition.inputJsonSchema ?? toJsonSchema(definition.argsSchema, "input");
    if (inputSchema.type !== "object") {
      throw new AppError(
        "CONFIG_INVALID",
        `Cannot register tool "${name}": its argsSchema must be an object schema (z.object), got ${
          JSON.stringify(inputSchema.type ?? "no type")
        }`,
      );
    }
    const outputJsonSchema = definition.outputJsonSchema ??
      (definition.outputSchema ? toJsonSchema(definition.outputSchema, "output") : undefined);
    const tool = { ...definition, inputSchema, outputJsonSchema } as RegisteredTool;
    this.#tools.set(name, Object.freeze(tool));
    this.#sources.set(name, source);
    this.#changed();
  }

  /** Removes a tool; returns whether it was there. */
  unregister(name: string): boolean {
    const removed = this.#tools.delete(name);
    this.#sources.delete(name);
    if (removed) this.#changed();
    return removed;
  }

  /** The tool of that name, if registered. */
  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /** Is a tool of that name registered? */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** Every tool, in registration order. */
  list(): RegisteredTool[] {
    return [...this.#tools.values()];
  }

  /** Name, description and args JSON Schema of every tool (cached until the registry changes). */
  getToolMetadataList(): PlannerTool[] {
    return this.cached("metadata", (tools) =>
      tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        argsSchema: tool.inputSchema,
        ...(tool.outputJsonSchema ? { outputSchema: tool.outputJsonSchema } : {}),
        ...(tool.remote ? { remote: tool.remote } : {}),
        ...(tool.annotations?.readOnlyHint === true ? { readOnly: true } : {}),
        ...(tool.alwaysOffer ? { alwaysOffer: true } : {}),
        ...argChecker(tool.argsSchema),
      })));
  }

  /** A value derived from the tools, computed once per registry change (e.g. the MCP tool list). */
  cached<T>(key: string, compute: (tools: RegisteredTool[]) => T): T {
    if (!this.#cache.has(key)) this.#cache.set(key, compute(this.list()));
    return this.#cache.get(key) as T;
  }

  /** Calls `listener` after every change; returns the function that stops it. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    this.#cache.clear();
    for (const listener of this.#listeners) listener();
  }
}

/** The planner-prompt section listing `tools` with their descriptions and args schemas. */
export function buildToolPromptSection(tools: readonly PlannerTool[]): string {
  if (tools.length === 0) return "Available tools: none. Respond with [].";
  const lines = tools.map((tool) => {
    // A remote server writes its tools' descriptions and schemas: show them as its data.
    const description = tool.remote
      ? `(from remote MCP server "${tool.remote}")\n${
        CATALOG_FENCE.block(`remote:${tool.remote}`, tool.description)
      }`
      : tool.description;
    const shown = (schema: unknown) => {
      const text = JSON.stringify(schema);
      return tool.remote ? CATALOG_FENCE.block(`remote:${tool.remote}`, text) : text;
    };
    // The output schema tells the model what a step reference can reach.
    const output = tool.outputSchema ? `\n  output JSON Schema: ${shown(tool.outputSchema)}` : "";
    return `- ${tool.name}: ${description}\n  args JSON Schema: ${
      shown(tool.argsSchema ?? {})
    }${output}`;
  });
  return `Available tools (use the exact tool ids; args must match each schema):\n${
    lines.join("\n")
  }`;
}

/** Most answers {@link argChecker} keeps per tool (the offline planner asks about every phrase). */
const MAX_CHECKED = 4_096;

/**
 * `acceptsArg` for a tool whose args schema is a Zod object (each arg checked
 * on its own); the answers for text are kept, as the planner asks about the
 * same phrases again and again (a place check reads a table each time).
 */
function argChecker(schema: z.ZodType): Pick<PlannerTool, "acceptsArg"> {
  if (!(schema instanceof z.ZodObject)) return {};
  const shape = schema.shape as Record<string, z.ZodType | undefined>;
  const checked = new Map<string, boolean>();
  const check = (name: string, value: unknown) =>
    Object.hasOwn(shape, name) && shape[name]!.safeParse(value).success;
  return {
    acceptsArg: (name, value) => {
      if (typeof value !== "string") return check(name, value);
      const key = `${name}\u0000${value}`;
      let accepted = checked.get(key);
      if (accepted === undefined) {
        if (checked.size >= MAX_CHECKED) checked.clear();
        accepted = check(name, value);
        checked.set(key, accepted);
      }
      return accepted;
    },
  };
}

/**
 * The schema as JSON Schema; a plain `z.object` of args says it takes no other
 * keys (`additionalProperties: false`), as the call refuses them (tool_args.ts).
 */
function toJsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
  }) as Record<string, unknown>;
  const closed = io === "input" && takesNoOtherKeys(schema);
  return closed ? { ...jsonSchema, additionalProperties: false } : jsonSchema;
}
