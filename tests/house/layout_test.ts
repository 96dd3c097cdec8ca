/**
 * The house rules of the layout (DESIGN.md): no import cycles, at most five
 * loose files at the top of `shared/`, and dependencies that point one way —
 * stores and adapters do not reach up into tools, the loop knows nothing of
 * the run engine, no feature imports an adapter, the contract imports no
 * feature.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(join(ROOT, dir))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) sourceFiles(path, out);
    else if (/\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

/**
 * The project files a file imports statically (`import ... from "./x.ts"`,
 * `export ... from`); with `runtime`, only imports that exist at run time
 * (not `import type`).
 */
function staticImports(file: string, { runtime = false } = {}): string[] {
  const text = Deno.readTextFileSync(join(ROOT, file));
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b([^;]*?)\bfrom\s*["'](\.[^"']+)["']/gms),
  ]
    .filter((match) => !runtime || !/^\s*type\b/.test(match[1]))
    .map((match) => match[2]);
  return specifiers.map((specifier) => normalize(join(dirname(file), specifier)));
}

/** Every import from `from` (a path prefix) into `into`, as "file -> target" lines. */
function importsInto(from: RegExp, into: RegExp, options?: { runtime?: boolean }): string[] {
  return files.filter((file) => from.test(file)).flatMap((file) =>
    staticImports(file, options).filter((target) => into.test(target))
      .map((target) => `${file} -> ${relative(".", target)}`)
  );
}

/** Every import cycle among `files`, each as the list of files around it. */
export function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "visiting");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "visiting") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

const files = [...sourceFiles("shared"), ...sourceFiles("functions")];

Deno.test("no import cycles between the project's files", () => {
  const graph = new Map(files.map((file) => [file, staticImports(file)]));
  assert.deepEqual(findCycles(graph), []);
});

Deno.test("the cycle finder finds a cycle", () => {
  const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
  assert.deepEqual(findCycles(graph), [["a", "b", "c", "a"]]);
});

Deno.test("at most five loose files at the top of shared/", () => {
  const loose = [...Deno.readDirSync(join(ROOT, "shared"))]
    .filter((entry) => entry.isFile).map((entry) => entry.name).sort();
  assert.ok(loose.length <= 5, `loose files: ${loose.join(", ")}`);
  for (const name of ["contracts.ts", "errors.ts", "ports.ts"]) assert.ok(loose.includes(name));
});

Deno.test("stores and adapters do not import tools, the loop or the surfaces", () => {
  const lower = files.filter((file) => /^shared\/(store|adapters)\//.test(file));
  const upward = lower.flatMap((file) =>
    staticImports(file)
      .filter((target) => /^shared\/(tools|refinement|loop|http|mcp|app|planner)\//.test(target))
      .map((target) => `${file} -> ${relative(".", target)}`)
  );
  assert.deepEqual(upward, []);
});

Deno.test("the loop imports nothing of the run engine at run time (it writes through its journal port)", () => {
  assert.deepEqual(importsInto(/^shared\/loop\//, /^shared\/runs\//, { runtime: true }), []);
});

Deno.test("features take nothing from adapters: text helpers live in shared/text/", () => {
  const features = /^shared\/(loop|tools|planner|refinement|memory|runs|text)\//;
  assert.deepEqual(importsInto(features, /^shared\/adapters\//), []);
});

Deno.test("the wire contract imports no feature", () => {
  assert.deepEqual(importsInto(/^shared\/contracts\.ts$/, /^shared\/[a-z_]+\//), []);
});
