/** The playground's route: served locally, off when deployed unless enabled, and its assets current. */
import assert from "node:assert/strict";
import { buildAssets } from "../../shared/http/playground/build_assets.ts";
import { PLAYGROUND_FILES } from "../../shared/local/playground_files.ts";
import { testApp } from "../support/test_app.ts";

const get = (path: string) => new Request(`http://localhost${path}`);
const DEPLOYED = { SUPABASE_URL: "https://abc.supabase.co", MCP_LOOP_REQUIRE_AUTH: "false" };

Deno.test("locally the playground page and its three scripts are served, from this origin only", async () => {
  const { app } = testApp({ playground: PLAYGROUND_FILES });
  const page = await app.fetch(get("/mcp-loop/playground"));
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type")!, /text\/html/);
  assert.match(page.headers.get("content-security-policy")!, /script-src 'self'/);
  assert.match(await page.text(), /<script type="module" src="\.\/playground\/playground\.js">/);
  for (const file of ["playground.js", "render.js", "client.js"]) {
    const res = await app.fetch(get(`/functions/v1/mcp-loop/playground/${file}`));
    assert.equal(res.status, 200, file);
    assert.match(res.headers.get("content-type")!, /text\/javascript/);
    await res.body?.cancel();
  }
  const client = await (await app.fetch(get("/mcp-loop/playground/client.js"))).text();
  assert.match(client, /export \{[^}]*createMcpLoopClient/);
  assert.doesNotMatch(client, /https?:\/\/(cdn|unpkg|esm\.sh)/);
  const slash = await app.fetch(get("/mcp-loop/playground/"));
  assert.equal(slash.status, 301);
  assert.equal(slash.headers.get("location"), "/mcp-loop/playground");
  assert.equal((await app.fetch(get("/mcp-loop/playground/nope.js"))).status, 404);
});

Deno.test("an app given no playground files (as deployed) says where the page is served", async () => {
  const res = await testApp().app.fetch(get("/mcp-loop/playground"));
  assert.equal(res.status, 404);
  assert.match((await res.json()).error.message, /deno task start/);
});

Deno.test("deployed, the playground is off (404) unless MCP_LOOP_PLAYGROUND=true", async () => {
  const off = testApp({}, DEPLOYED).app;
  const res = await off.fetch(get("/mcp-loop/playground"));
  assert.equal(res.status, 404);
  assert.match((await res.json()).error.message, /MCP_LOOP_PLAYGROUND=true/);
  const on = testApp({}, { ...DEPLOYED, MCP_LOOP_PLAYGROUND: "true" }).app;
  assert.equal((await on.fetch(get("/mcp-loop/playground"))).status, 200);
});

Deno.test("assets.js is up to date with index.html, playground.js, render.js and the client (deno task build:playground)", async () => {
  const current = await Deno.readTextFile(
    new URL("../../shared/http/playground/assets.js", import.meta.url),
  );
  assert.ok(
    current === await buildAssets(),
    "run `deno task build:playground` and commit assets.js",
  );
});

Deno.test("deployed with the playground on, its page says why it cannot render there and how to run it", async () => {
  const { app } = testApp({}, {
    SUPABASE_URL: "https://abcd.supabase.co",
    MCP_LOOP_PLAYGROUND: "true",
    MCP_LOOP_REQUIRE_AUTH: "false",
  });
  const res = await app.fetch(new Request("http://localhost/mcp-loop/playground"));
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
  assert.match(await res.text(), /plain text[\s\S]*task start/);
});
