/**
 * The function and stdio entries tune Zod before any schema exists
 * (shared/app/zod_tuning.ts), and that reaches the MCP SDK's own schemas:
 * no cycle memoizer (a cyclic value now overflows the stack, JSON parses as
 * before), and a failed `safeParse` that answers exactly as Zod's own but no
 * longer keeps its input alive through young-generation collections.
 */
import assert from "node:assert/strict";
import { evalOutput, ROOT } from "../support/process.ts";

const SETUP = `import "${new URL("shared/app/zod_tuning.ts", `file://${ROOT}`).href}";`;

async function parseWithSdkSchema(setup: boolean, { edge = false } = {}): Promise<string> {
  // Under the edge runtime the global exists before any module runs (the runtime's bootstrap).
  const script = `
    ${edge ? 'import "data:text/javascript,globalThis.EdgeRuntime = { waitUntil() {} };";' : ""}
    ${setup ? SETUP : ""}
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

Deno.test("under the edge runtime the setup leaves Zod as published (it gained nothing there)", async () => {
  assert.deepEqual(JSON.parse(await parseWithSdkSchema(true, { edge: true })), {
    plain: true,
    cyclic: "parsed",
  });
});

Deno.test("safeParse answers as Zod's own z.safeParse does, for valid and invalid values", async () => {
  // Zod's module-level z.safeParse is left untouched: it is the reference.
  const script = `
    ${SETUP}
    import { z } from "zod";
    import fc from "fast-check";
    const schemas = [
      z.string().min(2),
      z.number().int().positive(),
      z.object({ name: z.string(), tags: z.array(z.string()).max(2), age: z.number().optional() }),
      z.looseObject({ jsonrpc: z.literal("2.0"), id: z.union([z.string(), z.number()]) }),
      z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("a"), a: z.string() }),
        z.object({ kind: z.literal("b"), b: z.boolean() }),
      ]),
      z.string().refine((s) => s.startsWith("x"), { message: "must start with x" }),
      z.object({ n: z.coerce.number().default(3) }).strict(),
    ];
    let compared = 0;
    fc.assert(fc.property(fc.nat(schemas.length - 1), fc.anything(), (i, value) => {
      const schema = schemas[i];
      const ours = schema.safeParse(value);
      const zods = z.safeParse(schema, value);
      if (ours.success !== zods.success) throw new Error("success differs");
      if (ours.success) {
        if (JSON.stringify(ours.data) !== JSON.stringify(zods.data)) throw new Error("data differs");
      } else {
        if (!(ours.error instanceof z.ZodError)) throw new Error("not a ZodError");
        if (ours.error !== ours.error) throw new Error("error rebuilt on a second read");
        if (ours.error.message !== zods.error.message) throw new Error("message differs");
        if (JSON.stringify(ours.error.issues) !== JSON.stringify(zods.error.issues)) throw new Error("issues differ");
      }
      compared++;
    }), { numRuns: 2000, seed: 42 });
    const detached = schemas[0].safeParse;
    const assigned = z.string();
    assigned.safeParse = () => "replaced";
    const asyncSchema = z.string().refine(async () => true);
    let asyncError = "";
    try { asyncSchema.safeParse("x"); } catch (error) { asyncError = error.constructor.name; }
    console.log(JSON.stringify({
      compared,
      detached: detached("ok").success,
      assigned: assigned.safeParse("x"),
      asyncError,
      sdkFailure: schemas[3].safeParse({ jsonrpc: "2.0", method: "x" }).error.issues[0].path,
      failureClass: schemas[0].safeParse(1).constructor.name,
    }));
  `;
  assert.deepEqual(JSON.parse(await evalOutput(script, { ext: "js" })), {
    compared: 2000,
    detached: true,
    assigned: "replaced",
    asyncError: "$ZodAsyncError",
    sdkFailure: ["id"],
    failureClass: "SafeParseFailure",
  });
});

/**
 * Bytes promoted to the old generation by the last ten young-generation
 * collections while the SDK's message guards reject 200,000 requests (V8's
 * --trace-gc-nvp; the first collections, while the modules load, promote what
 * stays for good and are not counted).
 */
async function promotedByFailedGuards(setup: boolean): Promise<number> {
  const script = `
    ${setup ? SETUP : ""}
    import { isJSONRPCErrorResponse, isJSONRPCResultResponse } from "@modelcontextprotocol/server";
    let answers = 0;
    for (let i = 0; i < 200_000; i++) {
      const request = { jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "t", arguments: { i } } };
      if (isJSONRPCResultResponse(request) || isJSONRPCErrorResponse(request)) answers++;
    }
    if (answers !== 0) throw new Error("a request was taken for a response");
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=js", "--v8-flags=--trace-gc-nvp", script],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(output.code, 0);
  const promoted: number[] = [];
  for (const line of new TextDecoder().decode(output.stdout).split("\n")) {
    const at = line.indexOf("GC: {");
    if (at === -1) continue;
    const gc = JSON.parse(line.slice(at + 4));
    if (gc.gc === "s") promoted.push(gc.promoted);
  }
  assert.ok(promoted.length > 20, `${promoted.length} young-generation collections`);
  return promoted.slice(-10).reduce((sum, bytes) => sum + bytes, 0);
}

Deno.test("with the setup a failed safeParse keeps nothing alive past a young-generation collection", async () => {
  const MB = 1024 * 1024;
  const without = await promotedByFailedGuards(false);
  const withSetup = await promotedByFailedGuards(true);
  assert.ok(without > 10 * MB, `Zod's own failures promote their inputs (${without} bytes)`);
  assert.ok(withSetup < MB / 10, `promoted ${withSetup} bytes`);
});

Deno.test("both entries import the setup before anything else", async () => {
  for (const entry of ["shared/app/serve_http.ts", "shared/app/serve_stdio.ts"]) {
    const source = await Deno.readTextFile(new URL(entry, `file://${ROOT}`));
    const firstImport = source.match(/^import .*$/m)?.[0];
    assert.equal(firstImport, 'import "./zod_tuning.ts";', entry);
  }
  for (const entry of ["functions/mcp-loop/index.ts", "functions/mcp-stdio/main.ts"]) {
    const source = await Deno.readTextFile(new URL(entry, `file://${ROOT}`));
    assert.match(
      source.match(/^import .*$/m)?.[0] ?? "",
      /shared\/app\/serve_(http|stdio)\.ts/,
      entry,
    );
  }
});
