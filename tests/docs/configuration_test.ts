/** docs/configuration.md lists exactly the environment variables the configuration loader reads. */
import assert from "node:assert/strict";
import { loadConfig } from "../../shared/config/config.ts";
import { LoopTypeName } from "../../shared/contracts.ts";

const DOC = new URL("../../docs/configuration.md", import.meta.url);

/** The names in the first column of the page's tables. */
async function documented(): Promise<Set<string>> {
  const text = await Deno.readTextFile(DOC);
  return new Set([...text.matchAll(/^\| `([A-Z][A-Z0-9_]*)`/gm)].map((m) => m[1]));
}

/** Names the loader asks for, recorded over a few environments (some are read only in context). */
function readByLoader(): Set<string> {
  const asked = new Set<string>();
  const recording = (base: Record<string, string>) =>
    new Proxy(base, {
      get(target, name) {
        if (typeof name !== "string") return undefined;
        asked.add(name);
        return target[name];
      },
    });
  const environments: Record<string, string>[] = [
    {},
    { SUPABASE_URL: "https://abc.supabase.co", SUPABASE_ANON_KEY: "anon" },
    { DATABASE_URL: "postgres://u:p@localhost:5432/db" },
    { OPENAI_API_KEY: "sk-test" },
  ];
  for (const env of environments) {
    try {
      loadConfig(recording(env));
    } catch {
      // an incomplete environment may be refused; the names it asked for still count
    }
  }
  return asked;
}

/** Quoted variable names in the source (names read only on some paths). */
async function namedInSource(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const dir of ["shared/config", "shared/app"]) {
    for await (const entry of Deno.readDir(new URL(`../../${dir}/`, import.meta.url))) {
      if (!entry.name.endsWith(".ts")) continue;
      const text = await Deno.readTextFile(new URL(`../../${dir}/${entry.name}`, import.meta.url));
      for (const m of text.matchAll(/reader\.\w+\(\s*"([A-Z][A-Z0-9_]*)"/g)) names.add(m[1]);
    }
  }
  for (const type of LoopTypeName.options) {
    names.add(`FSDD_LOOP_${type.toUpperCase()}_THRESHOLD`);
    names.add(`FSDD_LOOP_${type.toUpperCase()}_MAX_ITERATIONS`);
  }
  return names;
}

Deno.test("every variable the loader reads is documented in docs/configuration.md", async () => {
  const doc = await documented();
  const read = new Set([...readByLoader(), ...await namedInSource()]);
  const missing = [...read].filter((name) => !doc.has(name)).sort();
  assert.deepEqual(missing, [], `undocumented: ${missing.join(", ")}`);
});

Deno.test("docs/configuration.md documents no variable the loader ignores", async () => {
  const read = new Set([...readByLoader(), ...await namedInSource()]);
  const stale = [...await documented()].filter((name) => !read.has(name)).sort();
  assert.deepEqual(stale, [], `documented but never read: ${stale.join(", ")}`);
});

Deno.test("settings that differ between deployments are variables: at most 30 MCP_LOOP_* names", async () => {
  const read = new Set([...readByLoader(), ...await namedInSource()]);
  const ours = [...read].filter((name) => name.startsWith("MCP_LOOP_")).sort();
  assert.ok(ours.length <= 30, `${ours.length} MCP_LOOP_* variables: ${ours.join(", ")}`);
});

/** Variables the test and benchmark scripts read, which the loader does not. */
const SCRIPT_VARIABLES = new Set([
  "MCP_LOOP_TEST_POSTGRES_URL",
  "MCP_LOOP_BENCH_POSTGRES_URL",
  "MCP_LOOP_TEST_SERVE",
]);

Deno.test("README and docs/ name no MCP_LOOP_* variable the loader does not read", async () => {
  const read = new Set([...readByLoader(), ...await namedInSource()]);
  const pages = [
    "README.md",
    ...[...Deno.readDirSync(new URL("../../docs/", import.meta.url))]
      .filter((entry) => entry.name.endsWith(".md")).map((entry) => `docs/${entry.name}`),
  ];
  const stale: string[] = [];
  for (const page of pages) {
    const text = await Deno.readTextFile(new URL(`../../${page}`, import.meta.url));
    for (const [name] of text.matchAll(/MCP_LOOP_[A-Z0-9_]*[A-Z0-9]/g)) {
      // `MCP_LOOP_CALLER_*` names a family of variables.
      const family = text.includes(`${name}_*`) &&
        [...read].some((known) => known.startsWith(`${name}_`));
      if (!read.has(name) && !SCRIPT_VARIABLES.has(name) && !family) stale.push(`${page}: ${name}`);
    }
  }
  assert.deepEqual([...new Set(stale)], [], "removed variables are options now (configuration.md)");
});
