/**
 * `deno task bench bundle_check`: the bundle estimate (bundle_bench.ts) of the
 * functions Supabase published sizes for, beside those sizes ("Edge Functions are
 * now 2x smaller and boot 3x faster", supabase.com/blog/edge-functions-faster-smaller,
 * 2024-09-12: the size `supabase functions deploy` printed with CLI 1.192.5, the
 * brotli-compressed eszip, in go-units' decimal units). Each example is the
 * post's code. Its packages' dependencies resolve to today's releases, except
 * where that jumps far from the post's month: supabase-js's realtime client
 * takes `@types/ws`, which takes `@types/node` `*` (26.x today, 22.5 then, 0.4 MB
 * apart), so those are pinned to September 2024's. (Pinning openai's
 * `@types/node@18.19.50` and `qs@6.13.0` as well gives 952 kB, −8.9 %.) The first
 * run fetches the packages from npm.
 */
import { join } from "node:path";
import { deployedGraph } from "../deploy/bundle_graph.ts";
import { brotliSize, concat, packageGroup } from "./bundle_bench.ts";

/** One published example: its code, the era's pins, and the size the CLI printed. */
interface Example {
  name: string;
  published: number;
  code: string;
}

const EXAMPLES: Example[] = [
  {
    name: "openai@4.57.3",
    published: 1_045_000,
    code: `import OpenAI from "npm:openai@4.57.3";
const client = new OpenAI({ apiKey: Deno.env.get("OPEN_AI_KEY") });
Deno.serve(async (req) => {
  const { query } = await req.json();
  const chatCompletion = await client.chat.completions.create({
    messages: [{ role: "user", content: "Say this is a test" }],
    model: "gpt-3.5-turbo",
  });
  return new Response(JSON.stringify({ chatCompletion, query }));
});
`,
  },
  {
    name: "@supabase/supabase-js@2.45.4",
    published: 640_400,
    code: `import { createClient } from "npm:@supabase/supabase-js@2.45.4";
import "npm:@types/node@22.5.4";
import "npm:undici-types@6.19.8";
import "npm:ws@8.18.0";
import "npm:@types/ws@8.5.12";
Deno.serve(async (req) => {
  const supabase = createClient(Deno.env.get("SUPABASE_URL") ?? "", Deno.env.get("SUPABASE_ANON_KEY") ?? "", {
    global: { headers: { Authorization: req.headers.get("Authorization")! } },
  });
  const { data, error } = await supabase.from("countries").select("*");
  if (error) throw error;
  return new Response(JSON.stringify({ data }));
});
`,
  },
];

/** The estimate of one example: its entry and every file of every npm package it reaches. */
async function estimate(example: Example, dir: string) {
  const entry = join(dir, "index.ts");
  await Deno.writeTextFile(entry, example.code);
  const graph = await deployedGraph("index.ts", dir);
  const packages = graph.npmPackages.map(packageGroup);
  const bytes = concat([Deno.readFileSync(entry), ...packages.map((pkg) => pkg.bytes)]);
  const files = 1 + packages.reduce((count, pkg) => count + pkg.files, 0);
  return { packages: packages.length, files, raw: bytes.length, brotli: brotliSize(bytes) };
}

const kb = (bytes: number) => `${(bytes / 1e3).toFixed(1)} kB`;

/** The examples' estimates beside the published sizes, as markdown. */
export async function bundleCheck(): Promise<string> {
  const rows = [];
  for (const example of EXAMPLES) {
    const dir = await Deno.makeTempDir({ prefix: "bundle-check-" });
    try {
      const result = await estimate(example, dir);
      const error = (result.brotli / example.published - 1) * 100;
      rows.push(
        `| ${example.name} | ${result.packages} | ${result.files.toLocaleString("en-US")} | ${
          kb(result.raw)
        } | ${kb(result.brotli)} | ${kb(example.published)} | ${error.toFixed(1)} % |`,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  return [
    "| example | npm packages | files | raw | estimate (brotli q6) | published | error |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n");
}
