import assert from "node:assert/strict";
import { z } from "zod";
import { isAppError } from "../../shared/errors.ts";
import { buildToolPromptSection, ToolRegistry } from "../../shared/tools/tool_registry.ts";

const echo = (name = "echo") => ({
  name,
  description: "Echoes its text",
  argsSchema: z.object({
    text: z.string().describe("What to echo"),
    times: z.number().int().min(1).default(1),
  }),
  run: ({ args }: { args: { text: string } }) => args.text,
});

Deno.test("register, get, has and list find a tool by name", () => {
  const registry = new ToolRegistry();
  registry.register(echo());
  assert.equal(registry.has("echo"), true);
  assert.equal(registry.has("nope"), false);
  assert.equal(registry.get("echo")?.description, "Echoes its text");
  assert.equal(registry.get("nope"), undefined);
  assert.deepEqual(registry.list().map((t) => t.name), ["echo"]);
});

Deno.test("registering a duplicate name is an error naming the tool", () => {
  const registry = new ToolRegistry();
  registry.register(echo());
  assert.throws(() => registry.register(echo()), (e) => {
    assert.ok(isAppError(e));
    assert.match(e.message, /"echo" from the application: the application already registers/);
    return true;
  });
});

Deno.test("names must follow MCP's rule", () => {
  const registry = new ToolRegistry();
  for (const bad of ["", "has space", "x".repeat(65), "slash/name", "émoji"]) {
    assert.throws(() => registry.register(echo(bad)), /must match/, bad);
  }
  for (const good of ["a", "snake_case", "dotted.name", "kebab-case", "A1", "x".repeat(64)]) {
    registry.register(echo(good));
  }
  assert.equal(registry.list().length, 6);
});

Deno.test("the args schema must describe an object", () => {
  const registry = new ToolRegistry();
  assert.throws(
    () => registry.register({ ...echo(), argsSchema: z.string() } as never),
    /must be an object schema/,
  );
});

Deno.test("metadata lists name, description and the args JSON Schema (input side, from Zod, closed)", () => {
  const registry = new ToolRegistry();
  registry.register(echo());
  const [metadata] = registry.getToolMetadataList();
  assert.equal(metadata.name, "echo");
  assert.equal(metadata.description, "Echoes its text");
  assert.deepEqual(metadata.argsSchema, {
    type: "object",
    properties: {
      text: { type: "string", description: "What to echo" },
      times: { type: "integer", minimum: 1, maximum: 9007199254740991, default: 1 },
    },
    required: ["text"],
    // A call with another key is refused (tool_args.ts), so the schema says there is none.
    additionalProperties: false,
  });
});

Deno.test("the metadata list is rebuilt when the registry changes", () => {
  const registry = new ToolRegistry();
  registry.register(echo("one"));
  assert.equal(registry.getToolMetadataList().length, 1);
  registry.register(echo("two"));
  assert.equal(registry.getToolMetadataList().length, 2);
  assert.equal(registry.unregister("one"), true);
  assert.equal(registry.unregister("one"), false);
  assert.deepEqual(registry.getToolMetadataList().map((t) => t.name), ["two"]);
});

Deno.test("the planner prompt section lists every tool with its description and schema", () => {
  const registry = new ToolRegistry();
  registry.register(echo());
  const section = buildToolPromptSection(registry.getToolMetadataList());
  assert.match(section, /- echo: Echoes its text/);
  assert.match(section, /args JSON Schema: \{"type":"object".*"required":\["text"\]/);
  assert.match(buildToolPromptSection([]), /none/);
});

Deno.test("a declared output schema is kept as JSON Schema", () => {
  const registry = new ToolRegistry();
  registry.register({ ...echo(), outputSchema: z.object({ text: z.string() }) });
  assert.deepEqual(registry.get("echo")?.outputJsonSchema?.required, ["text"]);
});
