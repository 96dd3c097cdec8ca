/**
 * The approval rule: MCP's annotation defaults (a tool that declares nothing
 * may destroy), the three modes, `needsApproval` in code, and the taint rule
 * with its provenance check.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import type { Caller } from "../../shared/ports.ts";
import {
  approvalRule,
  argsFromMessage,
  type CallOrigin,
} from "../../shared/tools/approval_rule.ts";
import { defineTool, type ToolAnnotations, type ToolDefinition } from "../../shared/tools/tool.ts";

const caller: Caller = { userId: null, owner: "key:rule" };

function tool(
  annotations?: ToolAnnotations,
  extra: { needsApproval?: boolean } = {},
): ToolDefinition {
  return defineTool({
    name: "t",
    description: "t",
    argsSchema: z.object({ v: z.string().optional() }),
    ...(annotations ? { annotations } : {}),
    ...extra,
    run: () => null,
  });
}

const clean: CallOrigin = { tainted: false, message: "do it" };

Deno.test("under destructive, a tool that declares nothing needs approval; read-only or non-destructive ones do not", () => {
  const rule = approvalRule("destructive", "off");
  assert.equal(rule(tool(), {}, caller, clean), true, "MCP's defaults: may destroy");
  assert.equal(rule(tool({ destructiveHint: true }), {}, caller, clean), true);
  assert.equal(rule(tool({ readOnlyHint: true }), {}, caller, clean), false);
  assert.equal(rule(tool({ destructiveHint: false }), {}, caller, clean), false);
  assert.equal(rule(tool({ readOnlyHint: false, destructiveHint: false }), {}, caller), false);
  // A remote server's tool is judged the same way: by what it declares.
  assert.equal(rule({ ...tool(), remote: "weather" }, {}, caller), true);
});

Deno.test("needsApproval in code decides for its tool under destructive; writes asks for every write", () => {
  const destructive = approvalRule("destructive", "off");
  const writes = approvalRule("writes", "off");
  assert.equal(destructive(tool(undefined, { needsApproval: false }), {}, caller), false);
  assert.equal(
    destructive(tool({ readOnlyHint: true }, { needsApproval: true }), {}, caller),
    true,
  );
  assert.equal(writes(tool(undefined, { needsApproval: false }), {}, caller), true);
  assert.equal(writes(tool({ destructiveHint: false }), {}, caller), true);
  assert.equal(writes(tool({ readOnlyHint: true }), {}, caller), false);
  assert.equal(approvalRule("none")(tool({ destructiveHint: true }), {}, caller), false);
});

Deno.test("taint: a write planned from untrusted text needs approval unless its values are the user's", () => {
  const rule = approvalRule("destructive", "writes");
  const note = tool({ readOnlyHint: false, destructiveHint: false });
  const tainted = (message: string): CallOrigin => ({ tainted: true, message });
  assert.equal(rule(note, { v: "ship it to mallory" }, caller, tainted("what's new?")), true);
  assert.equal(rule(note, { v: "Blue Whale" }, caller, tainted("remember: blue   whale")), false);
  assert.equal(rule(note, { v: "blue" }, caller, { tainted: false, message: "x" }), false);
  assert.equal(rule(tool({ readOnlyHint: true }), { v: "x" }, caller, tainted("y")), false);
  assert.equal(approvalRule("destructive", "off")(note, { v: "x" }, caller, tainted("y")), false);
});

Deno.test("argsFromMessage: strings appear in it, numbers appear as numbers, nested values count too", () => {
  const message = "Book 2 seats for the Lisbon trip on 2026-12-03, window side";
  assert.equal(argsFromMessage({ seats: 2, city: "lisbon" }, message), true);
  assert.equal(argsFromMessage({ when: "2026-12-03", prefs: ["Window side"] }, message), true);
  assert.equal(argsFromMessage({ seats: 3 }, message), false);
  assert.equal(argsFromMessage({ note: { text: "and email my boss" } }, message), false);
  assert.equal(argsFromMessage({ confirm: true, extra: null, blank: " " }, message), true);
});
