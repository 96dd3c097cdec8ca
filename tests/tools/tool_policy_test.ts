import assert from "node:assert/strict";
import { loadConfig } from "../../shared/config/config.ts";
import { ANONYMOUS, type Caller } from "../../shared/ports.ts";
import { ToolPolicy } from "../../shared/tools/tool_policy.ts";

const USER: Caller = { userId: "6f1c1b0e-8a4f-4f3e-9d55-0c3a1f7b2e11", owner: "user:6f1c1b0e" };
const CI_KEY: Caller = { userId: null, owner: "key:ci" };

Deno.test("with no rules every tool is permitted to everyone", () => {
  const policy = new ToolPolicy();
  assert.equal(policy.open, true);
  assert.equal(policy.permits("anything", { caller: ANONYMOUS, mode: "hiring" }), true);
});

Deno.test("a mode rule limits that mode only, and * matches any run of characters", () => {
  const policy = new ToolPolicy({ modes: { candidate: ["finalize_summary", "docs__*"] } });
  const subject = { caller: ANONYMOUS, mode: "candidate" as const };
  assert.equal(policy.permits("finalize_summary", subject), true);
  assert.equal(policy.permits("docs__search", subject), true);
  assert.equal(policy.permits("docs_search", subject), false, "the underscore pair is literal");
  assert.equal(policy.permits("get_loop_status", subject), false);
  assert.equal(policy.permits("get_loop_status", { caller: ANONYMOUS, mode: "analyst" }), true);
});

Deno.test("pattern characters other than * are literal", () => {
  const policy = new ToolPolicy({ callers: { anonymous: ["a.b"] } });
  assert.equal(policy.permits("a.b", { caller: ANONYMOUS }), true);
  assert.equal(policy.permits("axb", { caller: ANONYMOUS }), false);
});

Deno.test("an empty list permits nothing", () => {
  const policy = new ToolPolicy({ modes: { general: [] } });
  assert.equal(policy.permits("finalize_summary", { caller: ANONYMOUS, mode: "general" }), false);
});

Deno.test("the loop applies both the mode's and the caller's rule", () => {
  const policy = new ToolPolicy({
    modes: { analyst: ["*"] },
    callers: { anonymous: ["finalize_summary"] },
  });
  const anonymousAnalyst = { caller: ANONYMOUS, mode: "analyst" as const };
  assert.equal(policy.permits("finalize_summary", anonymousAnalyst), true);
  assert.equal(policy.permits("get_loop_status", anonymousAnalyst), false);
  assert.match(policy.refusal("get_loop_status", anonymousAnalyst) ?? "", /for caller "anonymous"/);
  assert.equal(policy.permits("get_loop_status", { caller: USER, mode: "analyst" }), true);
});

Deno.test("a caller's own rule wins over its role's rule", () => {
  const policy = new ToolPolicy({
    callers: {
      authenticated: ["finalize_summary"],
      [USER.owner]: ["*"],
      "key:ci": ["get_loop_status", "list_active_loops"],
    },
  });
  const other: Caller = { userId: "00000000-0000-4000-8000-000000000000", owner: "user:other" };
  assert.equal(policy.permits("get_loop_status", { caller: USER }), true);
  assert.equal(policy.permits("get_loop_status", { caller: other }), false);
  assert.equal(policy.permits("list_active_loops", { caller: CI_KEY }), true);
  assert.equal(policy.permits("finalize_summary", { caller: CI_KEY }), false);
  assert.equal(policy.permits("finalize_summary", { caller: ANONYMOUS }), true, "no rule");
});

Deno.test("refusals name the mode or caller that is refused, and filter keeps permitted tools", () => {
  const policy = new ToolPolicy({ modes: { candidate: ["finalize_summary"] } });
  const subject = { caller: ANONYMOUS, mode: "candidate" as const };
  assert.match(
    policy.refusal("get_loop_status", subject) ?? "",
    /not permitted in mode "candidate"/,
  );
  assert.deepEqual(
    policy.filter([{ name: "finalize_summary" }, { name: "get_loop_status" }], subject),
    [{ name: "finalize_summary" }],
  );
});

Deno.test("rules with an unknown mode or caller kind are refused", () => {
  assert.throws(() => new ToolPolicy({ modes: { boss: ["*"] } as never }));
  assert.throws(() => new ToolPolicy({ callers: { admin: ["*"] } }));
});

Deno.test("MCP_LOOP_TOOL_POLICY is read at start-up, and a bad policy stops start-up naming the problem", () => {
  const config = loadConfig({
    MCP_LOOP_TOOL_POLICY: '{"modes":{"candidate":["finalize_summary"]},"callers":{"key:ci":["*"]}}',
  });
  assert.deepEqual(config.toolPolicy, {
    modes: { candidate: ["finalize_summary"] },
    callers: { "key:ci": ["*"] },
  });
  assert.deepEqual(loadConfig({}).toolPolicy, { modes: {}, callers: {} });
  assert.throws(
    () => loadConfig({ MCP_LOOP_TOOL_POLICY: "{modes:" }),
    /MCP_LOOP_TOOL_POLICY must be JSON/,
  );
  assert.throws(
    () => loadConfig({ MCP_LOOP_TOOL_POLICY: '{"callers":{"admin":["*"]}}' }),
    /MCP_LOOP_TOOL_POLICY: callers.admin: a caller is/,
  );
  assert.throws(
    () => loadConfig({ MCP_LOOP_TOOL_POLICY: '{"modes":{"boss":["*"]}}' }),
    /MCP_LOOP_TOOL_POLICY: modes/,
  );
});
