/**
 * README's "Add a tool" adds a tool with args of its own to the list
 * functions/mcp-loop/tools.ts exports. The list is typed as any tools, so such
 * a tool joins it and everything that takes the list (the registry, the tests'
 * helpers) still type-checks: a list typed by its one shipped tool would make
 * `deno task check` fail on the user's first tool.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import tools from "../../functions/mcp-loop/tools.ts";
import { ToolRegistry } from "../../shared/tools/tool_registry.ts";
import { defineTool } from "../../shared/tools/tool.ts";

Deno.test("a tool with other args joins the exported tools list, and the list registers", () => {
  const celsius = defineTool({
    name: "celsius_to_kelvin",
    description: "Convert degrees celsius to kelvin.",
    argsSchema: z.object({ celsius: z.number() }),
    run: ({ args }) => ({ kelvin: args.celsius + 273.15 }),
  });
  // Type-checked: a narrower `typeof tools` would refuse this assignment.
  const extended: typeof tools = [...tools, celsius];
  const registry = new ToolRegistry();
  for (const tool of extended) registry.register(tool);
  assert.deepEqual(
    registry.getToolMetadataList().map((tool) => tool.name),
    ["get_current_time", "celsius_to_kelvin"],
  );
});
