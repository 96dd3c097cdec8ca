/**
 * The house rules of the layout (DESIGN.md): no import cycles, no source file
 * over 300 lines, at most five loose files at the top of `shared/`, and stores
 * that do not reach up into tools.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAX_LINES = 300;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(join(ROOT, dir))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) sourceFiles(path, out);
    else if (/\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** The project files a file imports statically (`import ... from "./x.ts"`, `export ... from`). */
function staticImports(file: string): string[] {
  const text = Deno.readTextFileSync(join(ROOT, file));
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.[^"']+)["']/gms),
  ]
    .map((match) => match[1]);
  return specifiers.map((specifier) => normalize(join(dirname(file), specifier)));
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

Deno.test(`no source file is over ${MAX_LINES} lines`, () => {
  const long = [...files, ...sourceFiles("tests")].flatMap((file) => {
    const lines = Deno.readTextFileSync(join(ROOT, file)).split("\n").length - 1;
    return lines > MAX_LINES ? [`${file}: ${lines} lines`] : [];
  });
  assert.deepEqual(long, []);
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
