/**
 * The function and stdio entries turn off Zod's cycle memoizer before any
 * schema exists (shared/app/zod_acyclic.ts), and that reaches the MCP SDK's
 * own schemas: a cyclic value, which only the memoizer can parse, now
 * overflows the stack, while JSON values parse as before.
 */
import assert from "node:assert/strict";
import { evalOutput } from "../support/process.ts";

const ROOT = new URL("../../", import.meta.url);

async function parseWithSdkSchema(setup: boolean): Promise<string> {
  const script = `
    ${setup ? `import "${new URL("shared/app/zod_acyclic.ts", ROOT).href}";` : ""}
    import { specTypeSchemas } from "@modelcontextprotocol/server";
    const schema = specTypeSchemas.JSONValue;
    const plain = schema.safeParse({ a: [1, "two", { three: null }] }).success;
    const cyclic = { a: 1 };
    cyclic.self = cyclic;
    let verdict;
    try {
      verdict = schema.safeParse(cyclic).success ? "parsed" : "refused";
    } catch (error) {
      verdict = error instanceof RangeError ? "stack overflow" : String(error);
    }
    console.log(JSON.stringify({ plain, cyclic: verdict }));
  `;
  return await evalOutput(script, { ext: "js" });
}

Deno.test("without the setup the SDK's schemas carry the memoizer; with it they do not", async () => {
  assert.deepEqual(JSON.parse(await parseWithSdkSchema(false)), {
    plain: true,
    cyclic: "parsed",
  });
  assert.deepEqual(JSON.parse(await parseWithSdkSchema(true)), {
    plain: true,
    cyclic: "stack overflow",
  });
});

Deno.test("both entries import the setup before anything else", async () => {
  for (const entry of ["shared/app/serve_http.ts", "shared/app/serve_stdio.ts"]) {
    const source = await Deno.readTextFile(new URL(entry, ROOT));
    const firstImport = source.match(/^import .*$/m)?.[0];
    assert.equal(firstImport, 'import "./zod_acyclic.ts";', entry);
  }
  for (const entry of ["functions/mcp-loop/index.ts", "functions/mcp-stdio/main.ts"]) {
    const source = await Deno.readTextFile(new URL(entry, ROOT));
    assert.match(
      source.match(/^import .*$/m)?.[0] ?? "",
      /shared\/app\/serve_(http|stdio)\.ts/,
      entry,
    );
  }
});
