import assert from "node:assert/strict";
import { lazyHandler } from "../../shared/http/lazy_handler.ts";
import type { Handler } from "../../shared/http/router.ts";

const request = () => new Request("http://localhost/mcp-loop/mcp", { method: "POST" });

Deno.test("lazyHandler builds on the first request, once, also for concurrent requests", async () => {
  let builds = 0;
  const lazy = lazyHandler(async () => {
    builds++;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return () => Promise.resolve(new Response(`handler ${builds}`));
  });
  assert.equal(builds, 0);
  const answers = await Promise.all([lazy.handle(request()), lazy.handle(request())]);
  assert.deepEqual(await Promise.all(answers.map((res) => res.text())), ["handler 1", "handler 1"]);
  assert.equal(builds, 1);
});

Deno.test("lazyHandler: load() builds before any request, and requests then reuse that build", async () => {
  let builds = 0;
  const lazy = lazyHandler(() => {
    builds++;
    return Promise.resolve<Handler>(() => Promise.resolve(new Response("ok")));
  });
  await lazy.load();
  assert.equal(builds, 1);
  assert.equal(await (await lazy.handle(request())).text(), "ok");
  await lazy.load();
  assert.equal(builds, 1);
});

Deno.test("lazyHandler: a failed build fails its request and the next request builds again", async () => {
  let builds = 0;
  const lazy = lazyHandler(() => {
    builds++;
    if (builds === 1) return Promise.reject(new Error("import failed"));
    return Promise.resolve<Handler>(() => Promise.resolve(new Response("second build")));
  });
  await assert.rejects(lazy.load(), /import failed/);
  assert.equal(await (await lazy.handle(request())).text(), "second build");
  assert.equal(builds, 2);
});
