import assert from "node:assert/strict";
import { unplainSchemaText } from "../../shared/mcp/remote_schema_text.ts";
import { catalogTools } from "../support/tool_catalog.ts";

Deno.test("every property name and enum value of 296 real MCP tools is a plain identifier", () => {
  const refused = catalogTools().filter((tool) =>
    unplainSchemaText(tool.inputSchema) !== undefined
  );
  assert.deepEqual(refused.map((tool) => tool.name), []);
});

Deno.test("a property name, enum or const value with spaces or markup is found, however deep", () => {
  const nested = (inner: unknown) => ({
    type: "object",
    properties: { items: { type: "array", items: { type: "object", properties: inner } } },
  });
  assert.equal(unplainSchemaText(nested({ "do this now": {} })), "do this now");
  assert.equal(unplainSchemaText(nested({ x: { enum: ["a", "b c"] } })), "b c");
  assert.equal(unplainSchemaText(nested({ x: { const: "<tag>" } })), "<tag>");
  assert.equal(
    unplainSchemaText(nested({ x: { anyOf: [{ enum: [1, "ok", "not ok"] }] } })),
    "not ok",
  );
  assert.equal(
    unplainSchemaText(nested({ owner: { enum: ["dotnet/blazor", "in_progress"] } })),
    undefined,
  );
  assert.equal(
    unplainSchemaText({ type: "object", properties: { description: { type: "string" } } }),
    undefined,
    "a property named description is a name like any other",
  );
});
