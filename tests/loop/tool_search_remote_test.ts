/**
 * Tool search with a real remote MCP server: tool vectors are computed once
 * per catalog version — a `notifications/tools/list_changed` embeds only the
 * new tool — and MCP clients still list every tool.
 */
import assert from "node:assert/strict";
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import type { Embedder, PlanInput } from "../../shared/ports.ts";
import { RemoteMcpFixture } from "../fakes/remote_mcp_fixture.ts";
import { ScriptedPlanner } from "../fakes/scripted_planner.ts";
import { inMemoryClient, mcpApp } from "../support/mcp_fixture.ts";

/** The hashing embedder, keeping every text it embeds. */
class RecordingEmbedder implements Embedder {
  readonly model = "hashing-v1";
  readonly dimensions = 1536;
  readonly texts: string[] = [];
  readonly #inner = new HashingEmbedder();

  embed(texts: string[]): Promise<number[][]> {
    this.texts.push(...texts);
    return this.#inner.embed(texts);
  }
}

/** Polls `check` (the registry has no event for it); a minute is a bound for a broken link. */
async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const request = (content: string) => ({
  mode: "general",
  sessionId: `s-${crypto.randomUUID()}`,
  messages: [{ role: "user", content }],
});

Deno.test("tool vectors are computed once per catalog version, list_changed included; MCP lists every tool", async () => {
  const fixture = RemoteMcpFixture.start();
  const embedder = new RecordingEmbedder();
  const planner = new ScriptedPlanner([]);
  const app = await mcpApp(
    {
      MCP_LOOP_REMOTE_SERVERS: JSON.stringify([{ name: "fixture", url: fixture.url }]),
    },
    { embedder, planner },
    { toolSearch: { threshold: 3, topK: 2 } },
  );
  const messages = new Set(["echo this text back", "add two numbers", "shout it out loud"]);
  const toolTexts = () => embedder.texts.filter((text) => !messages.has(text));
  try {
    await app.ready();
    const catalog = app.registry.list().length;
    await app.run(request("echo this text back"));
    assert.equal(toolTexts().length, catalog, "the catalog, embedded once");
    const first = (planner.calls[0] as PlanInput).tools.map((tool) => tool.name);
    assert.ok(first.includes("fixture__echo"), `offered ${first}`);
    assert.ok(first.includes("search_tools"));
    assert.equal(first.length, 4, "finalize_summary, search_tools and the 2 best matches");

    await app.run(request("add two numbers"));
    assert.equal(toolTexts().length, catalog, "a second request embeds no tool");

    fixture.addTool("shout");
    await until(() => app.registry.has("fixture__shout"), "the new remote tool");
    await app.run(request("shout it out loud"));
    assert.deepEqual(toolTexts().slice(catalog), [
      "fixture shout: [fixture] Added at run time: shout",
    ]);
    const third = (planner.calls[2] as PlanInput).tools.map((tool) => tool.name);
    assert.ok(third.includes("fixture__shout"), `offered ${third}`);

    const client = await inMemoryClient(app);
    const listed = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
    await client.close();
    assert.deepEqual(listed.sort(), app.registry.list().map((tool) => tool.name).sort());
    assert.ok(!listed.includes("search_tools"), "tool search is the loop's, not MCP's");
  } finally {
    await app.close();
    await fixture.stop();
  }
});
