import assert from "node:assert/strict";
import { z } from "zod";
import type { PlanInput } from "../../shared/ports.ts";
import { ChatPlanner } from "../../shared/planner/chat_planner.ts";
import { defineTool } from "../../shared/tools/tool.ts";
import { ToolPolicy } from "../../shared/tools/tool_policy.ts";
import { ScriptedChatModel } from "../fakes/scripted_chat_model.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { buildLoop, loopRequest } from "../support/loop_fixture.ts";
import { catalogTools, remoteDefinition } from "../support/tool_catalog.ts";

/** The 296 catalog tools as remote tools. */
const CATALOG = catalogTools().map(remoteDefinition);
const offered = (input: PlanInput) => input.tools.map((tool) => tool.name);

Deno.test("up to the threshold every permitted tool is offered, finalize_summary first, then by name", async () => {
  const planner = new ScriptedPlanner([]);
  const { runner } = buildLoop({
    planner,
    tools: CATALOG.slice(0, 20).reverse(),
    toolSearch: { threshold: 30 },
  });
  await runner.run(loopRequest("hello"));
  const names = offered(planner.calls[0]);
  assert.equal(names.length, 21);
  assert.equal(names[0], "finalize_summary");
  assert.deepEqual(names.slice(1), [...names.slice(1)].sort());
  assert.ok(!names.includes("search_tools"), "nothing to search");
});

Deno.test("above the threshold the planner sees the always-offered tools and the best matches", async () => {
  const planner = new ScriptedPlanner([]);
  const pinned = defineTool({
    name: "company_handbook",
    description: "Look up the company's handbook",
    argsSchema: z.object({}),
    alwaysOffer: true,
    run: () => "handbook",
  });
  const { runner } = buildLoop({
    planner,
    tools: [...CATALOG, pinned],
    toolSearch: { threshold: 30, topK: 10 },
  });
  await runner.run(loopRequest("Post 'Deploy finished' in the #releases channel"));
  const names = offered(planner.calls[0]);
  assert.equal(names.length, 13);
  assert.deepEqual(names.slice(0, 3), ["company_handbook", "finalize_summary", "search_tools"]);
  assert.ok(names.includes("slack__slack_post_message"));
  assert.ok(names.includes("slack__slack_list_channels"));
  assert.deepEqual(names.slice(3), [...names.slice(3)].sort(), "the matches by name, not by score");
});

Deno.test("search_tools finds tools for the next round, after the ones already offered", async () => {
  const planner = new ScriptedPlanner(
    [{ tool: "search_tools", args: { query: "refund a payment", limit: 3 } }],
    [],
  );
  const { runner } = buildLoop({ planner, tools: CATALOG, toolSearch: { topK: 8 } });
  const response = await runner.run(loopRequest("Post 'Deploy finished' in #releases", {
    maxRounds: 2,
  }));
  const [first, second] = planner.calls.map(offered);
  const found = (response.data.intermediateResults[0].output as { tools: { name: string }[] })
    .tools.map((tool) => tool.name);
  assert.ok(found.includes("stripe__create_refund"), `found ${found}`);
  assert.deepEqual(second.slice(0, first.length), first, "round 1's tools keep their place");
  assert.deepEqual(second.slice(first.length), found.filter((n) => !first.includes(n)).sort());
});

Deno.test("search_tools never finds a tool the policy refuses in this mode", async () => {
  const planner = new ScriptedPlanner(
    [{ tool: "search_tools", args: { query: "refund a payment" } }],
    [],
  );
  const policy = new ToolPolicy({
    modes: { general: ["finalize_summary", "slack__*", "github__*"] },
    callers: {},
  });
  const { runner } = buildLoop({ planner, tools: CATALOG, policy, toolSearch: { topK: 8 } });
  const response = await runner.run(loopRequest("refund the payment", { maxRounds: 2 }));
  const step = response.data.intermediateResults[0];
  assert.equal(step.success, true, "search_tools is never refused");
  const found = (step.output as { tools: { name: string }[] }).tools.map((tool) => tool.name);
  assert.ok(found.length > 0);
  assert.ok(found.every((name) => /^(slack|github)__/.test(name)), `found ${found}`);
  for (const call of planner.calls) {
    assert.ok(offered(call).every((name) => !name.startsWith("stripe__")));
  }
});

Deno.test("the prompt's first part is the same bytes in round 2 and for another request offered the same tools", async () => {
  const model = new ScriptedChatModel(
    JSON.stringify({ plan: [{ tool: "slack__slack_list_channels", args: {} }] }),
    JSON.stringify({ plan: [{ tool: "finalize_summary", args: {} }] }),
  );
  const { runner } = buildLoop({
    planner: new ChatPlanner(model),
    tools: CATALOG,
    toolSearch: { topK: 12 },
  });
  const message = "Post 'Deploy finished' in the #releases channel";
  await runner.run(loopRequest(message, { maxRounds: 2 }));
  await runner.run(loopRequest(message, { maxRounds: 2 }));
  const [one, two, three] = model.requests;
  const prefixOf = (text: string) => text.slice(0, text.indexOf("The user's latest message"));
  assert.equal(one.messages[0].content, three.messages[0].content, "the system message");
  const prefix = prefixOf(one.messages[1].content);
  assert.ok(prefix.length > 5_000);
  assert.equal(prefixOf(two.messages[1].content), prefix, "round 2");
  assert.equal(prefixOf(three.messages[1].content), prefix, "another request");
  assert.deepEqual(two.jsonSchema, one.jsonSchema, "the plan schema too");
  assert.ok(!/untrusted-data-[0-9a-f]{16}/.test(prefix), "no per-prompt fence tag in it");
});
