/**
 * The house rule that serves a reader (STYLE.md): a function fits on a screen,
 * about 60 lines at most. Every `.ts` file under `shared/` and `functions/`
 * (not `shared/vendor/`) is parsed with the TypeScript compiler, and every
 * function-like node with a body — function declaration, method, constructor,
 * accessor, arrow function, function expression — is measured.
 *
 * Lines are counted as a reader scrolls them: the whole span from the line the
 * function starts on (its leading doc comment excluded) to the line of its
 * closing brace, both included, blank lines, comments and nested functions
 * included. A factory that builds and returns an object of handlers is one
 * function, measured as a whole; so is its every nested handler on its own.
 *
 * The file length is not measured: one concept per file, and a file holds its
 * concept whole.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The most lines a function may span. */
const MAX_LINES = 60;

/**
 * Files being changed elsewhere right now: their long functions are being
 * worked on in another branch. The lead removes each entry once that work lands.
 */
const BEING_CHANGED_ELSEWHERE = new Set<string>([]);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(join(ROOT, dir))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      if (path !== join("shared", "vendor")) sourceFiles(path, out);
    } else if (/\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** A readable name for a function-like node: its own, or the binding or key it is given to. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name && !ts.isComputedPropertyName(node.name)) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)) && !ts.isComputedPropertyName(parent.name)
  ) return parent.name.getText();
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText()})`;
  return "(anonymous)";
}

/** Every function-like node with a body that spans more than `max` lines, as "file:line name: lines". */
export function longFunctions(
  path: string,
  text: string,
  { max = MAX_LINES }: { max?: number } = {},
): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push(`${path}:${first + 1} ${functionName(fn)}: ${lines}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

Deno.test("every function in shared/ and functions/ spans at most 60 lines", () => {
  const files = [...sourceFiles("shared"), ...sourceFiles("functions")].sort()
    .filter((file) => !BEING_CHANGED_ELSEWHERE.has(file));
  const long = files.flatMap((file) =>
    longFunctions(file, Deno.readTextFileSync(join(ROOT, file)))
  );
  assert.deepEqual(long, [], `functions over ${MAX_LINES} lines:\n${long.join("\n")}`);
});

Deno.test("the measure counts a function's whole span, nested functions included", () => {
  const body = Array.from({ length: 59 }, (_, i) => `  const a${i} = ${i};`).join("\n");
  const text = [
    "/** A doc comment is not counted. */",
    "export function outer() {",
    "  const inner = () => {",
    body,
    "  };",
    "  return inner;",
    "}",
    "const fits = () => {",
    "  return 1;",
    "};",
  ].join("\n");
  assert.deepEqual(longFunctions("x.ts", text), ["x.ts:2 outer: 64", "x.ts:3 inner: 61"]);
  assert.deepEqual(longFunctions("x.ts", text, { max: 64 }), []);
});

Deno.test("the measure names methods, accessors, constructors and handlers in an object", () => {
  const long = (head: string) => [head, ...Array.from({ length: 60 }, () => "  x();"), "}"];
  const text = [
    "class C {",
    ...long("constructor() {"),
    ...long("get size() {"),
    ...long("run() {"),
    "}",
    "const handlers = {",
    ...long("onMessage: function () {"),
    "};",
    "const declared = function named() {};",
  ].join("\n");
  const names = longFunctions("x.ts", text).map((line) => line.replace(/^x\.ts:\d+ /, ""));
  assert.deepEqual(names, [
    "constructor: 62",
    "size: 62",
    "run: 62",
    "onMessage: 62",
  ]);
});
