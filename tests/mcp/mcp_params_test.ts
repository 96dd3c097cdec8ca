/**
 * checkParams skips the spec's schema where its own checks cover every field:
 * the shortcut must never pass params the spec would refuse.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { specTypeSchemas } from "@modelcontextprotocol/server";
import { checkParams } from "../../shared/mcp/mcp_params.ts";

type Schema = { safeParse(value: unknown): { success: boolean } };

const specSchemaOf = (method: string): Schema =>
  Object.values(specTypeSchemas as Record<string, unknown>).find((schema) =>
    (schema as { shape?: { method?: { value?: unknown } } }).shape?.method?.value === method
  ) as Schema;

const value = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
  fc.array(fc.integer(), { maxLength: 2 }),
);

const meta = fc.option(
  fc.record({
    progressToken: value,
    "io.modelcontextprotocol/related-task": fc.oneof(value, fc.record({ taskId: value })),
    "io.modelcontextprotocol/protocolVersion": fc.constant("2026-07-28"),
    note: value,
  }, { requiredKeys: [] }),
  { nil: undefined },
);

const paramsFor = (keys: Record<string, fc.Arbitrary<unknown>>) =>
  fc.record({ ...keys, _meta: meta, task: value, extra: value }, { requiredKeys: [] });

const cases: [string, fc.Arbitrary<Record<string, unknown>>][] = [
  [
    "tools/call",
    paramsFor({ name: fc.oneof(fc.constant("get_current_time"), value), arguments: value }),
  ],
  ["tools/list", paramsFor({ cursor: value })],
  ["resources/list", paramsFor({ cursor: value })],
  ["prompts/list", paramsFor({ cursor: value })],
  ["resources/templates/list", paramsFor({ cursor: value })],
  ["ping", paramsFor({})],
];

for (const [method, params] of cases) {
  Deno.test(`${method}: params accepted without the spec's schema are params the spec accepts`, () => {
    const schema = specSchemaOf(method);
    fc.assert(
      fc.property(params, (p) => {
        const accepted = checkParams({ jsonrpc: "2.0", id: 1, method, params: p }) === undefined;
        if (accepted) assert.ok(schema.safeParse({ method, params: p }).success, JSON.stringify(p));
      }),
      { numRuns: 2000 },
    );
  });
}

Deno.test("the shortcut still answers the common calls, and a typed _meta field goes to the spec", () => {
  const call = (params: unknown) =>
    checkParams({ jsonrpc: "2.0", id: 1, method: "tools/call", params });
  assert.equal(call({ name: "get_current_time", arguments: {} }), undefined);
  assert.equal(call({ name: "get_current_time", _meta: { progressToken: 7 } }), undefined);
  assert.match(call({ name: "get_current_time", _meta: { progressToken: true } }) ?? "", /_meta/);
  assert.match(call({ name: "get_current_time", task: "soon" }) ?? "", /task/);
  assert.equal(checkParams({ jsonrpc: "2.0", id: 2, method: "tools/list" }), undefined);
});
