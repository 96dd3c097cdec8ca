/**
 * `supabase functions deploy mcp-loop --use-api` uploads what the Supabase
 * CLI's import walk finds (`upload_walk.ts`, the CLI's regular expression and
 * error handling re-implemented): the walk must open every path it follows,
 * upload the whole deployed module graph, and every file the function reads
 * at run time must be uploaded too, or never be read when deployed.
 */
import assert from "node:assert/strict";
import { stringLiteral } from "../../shared/http/playground/build_assets.ts";
import { readFunctionUpload } from "./function_config.ts";
import { diskFiles, memoryFiles } from "./project_files.ts";
import { collectUpload, importTargets, type UploadWalk } from "./upload_walk.ts";

const ROOT_URL = new URL("../../", import.meta.url);
const project = diskFiles(ROOT_URL.pathname);

let deployed: Promise<{ walk: UploadWalk; importMap: string; modules: string[] }> | undefined;

/** The CLI's upload of mcp-loop (paths from supabase/config.toml) and `deno info`'s module graph. */
function deployment() {
  return deployed ??= (async () => {
    const upload = await readFunctionUpload(project, "mcp-loop");
    assert.deepEqual(
      [upload.enabled, upload.entrypoint, upload.importMap, upload.staticFiles],
      [true, "functions/mcp-loop/index.ts", "import_map.json", []],
    );
    const walk = await collectUpload({ files: project, ...upload });
    return { walk, importMap: upload.importMap, modules: await localModules(upload.entrypoint) };
  })();
}

/** The project files in the static and dynamic import graph of `entrypoint`. */
async function localModules(entrypoint: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entrypoint],
    cwd: ROOT_URL,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout));
  return (info.modules as { specifier: string }[])
    .map((module) => module.specifier)
    .filter((specifier) => specifier.startsWith(ROOT_URL.href))
    .map((specifier) => decodeURIComponent(specifier.slice(ROOT_URL.href.length)))
    .sort();
}

Deno.test("deploying mcp-loop, the CLI opens every path its walk follows: nothing aborts the upload", async () => {
  const { walk } = await deployment();
  assert.equal(walk.abort, undefined, `the CLI stops the upload with: ${walk.abort}`);
  assert.deepEqual(walk.warnings, []);
});

Deno.test("the upload is the import map and exactly the deployed module graph: the pattern misreads nothing", async () => {
  const { walk, importMap, modules } = await deployment();
  assert.equal(walk.uploaded[0], importMap);
  assert.deepEqual(walk.uploaded.slice(1).sort(), modules);
  const misread = walk.followed.filter((followed) => !modules.includes(followed.target));
  assert.deepEqual(misread, [], "text the CLI reads as an import of a file that is not a module");
});

Deno.test("the upload holds no PGlite adapter file, nothing local-only, and the tokenizer's first ranks only", async () => {
  const { walk } = await deployment();
  assert.deepEqual(walk.uploaded.filter((path) => path.includes("pglite")), []);
  assert.deepEqual(walk.uploaded.filter((path) => path.startsWith("shared/local/")), []);
  const vendored = walk.uploaded.filter((path) => path.startsWith("shared/vendor/"));
  assert.ok(vendored.includes("shared/vendor/cl100k-prefix/ranks.js"));
  assert.ok(vendored.includes("shared/vendor/gpt-tokenizer/GptEncoding.js"));
  assert.ok(!vendored.includes("shared/vendor/gpt-tokenizer/bpeRanks/cl100k_base.js"));
});

// The old assets.ts shape: `deno fmt` wrote the JSON string of the bundled client in single quotes.
const CLIENT =
  "// npm:eventsource-parser/3.1.1/dist/index.js\nvar ParseError = class extends Error {\n" +
  '  constructor(message, options) {\n    super(message), this.name = "ParseError";\n  }\n};\n' +
  'import { createParser } from "./parser.js";\n';
const asFormatted = (literal: string) => `'${literal.slice(1, -1).replaceAll('\\"', '"')}'`;

function demoFunction(clientLiteral: string) {
  return memoryFiles({
    "functions/demo/index.ts":
      'import "./late.ts";\nimport { CLIENT_SCRIPT } from "./assets.ts";\n',
    "functions/demo/late.ts": "export const LATE = 1;\n",
    "functions/demo/assets.ts": `export const CLIENT_SCRIPT: string =\n  ${clientLiteral};\n`,
  });
}

Deno.test("a generated string literal starting `// npm:` aborts the upload, as assets.ts did before its slashes were escaped", async () => {
  assert.ok(!CLIENT.includes("'"));
  const files = demoFunction(asFormatted(JSON.stringify(CLIENT)));
  const walk = await collectUpload({ files, entrypoint: "functions/demo/index.ts" });
  assert.match(
    walk.abort ?? "",
    /^failed to read file: open \/ npm:eventsource-parser\/3\.1\.1\/dist\/index\.js.*: invalid argument$/s,
  );
  // Depth first, last import first: late.ts would have come after and is never uploaded.
  assert.deepEqual(walk.uploaded, ["functions/demo/index.ts", "functions/demo/assets.ts"]);
  assert.deepEqual(walk.warnings, [
    "failed to read file: open functions/demo/parser.js: no such file or directory",
  ]);
});

Deno.test("the same text written by build_assets' stringLiteral uploads the function whole", async () => {
  for (const literal of [stringLiteral(CLIENT), asFormatted(stringLiteral(CLIENT))]) {
    const files = demoFunction(literal);
    const walk = await collectUpload({ files, entrypoint: "functions/demo/index.ts" });
    assert.equal(walk.abort, undefined);
    assert.deepEqual(walk.warnings, []);
    assert.deepEqual(walk.uploaded, [
      "functions/demo/index.ts",
      "functions/demo/assets.ts",
      "functions/demo/late.ts",
    ]);
  }
});

// Lines of the CLI's own fixtures (supabase/cli apps/cli-go/pkg/function/testdata/modules/,
// imports.ts and import_types.ts, MIT) and what its deno_test.go expects the walk to read.
const CLI_FIXTURE = `import {
  Component
} from '@angular2/core';
import   *    as name from "module-name  ";
import {
    PlaneBufferGeometry,
    TorusBufferGeometry
} from '../geometries/Geometries.js'
import("module-name/whatever.ts")
import MultiContentListView from "./views/ListView"
<MenuItem value="^$" primaryText="Não exibir importados" />
// *app requires those import modules to function
import { "a-b" as a } from "/modules/my-module.ts";
import myDefault, * as myModule from "/modules/my-module.ts";
import type {
  Database,
  Json
} from '../types/database.ts'
export type { Database } from '../types/database.ts'`;

Deno.test("the walk reads what the CLI's own tests expect it to read", () => {
  const targets = (imports: Record<string, string>) =>
    new Set(
      importTargets(CLI_FIXTURE, "testdata/modules/imports.ts", { imports }).map((t) => t.target),
    );
  const plain = [
    "testdata/geometries/Geometries.js",
    "/modules/my-module.ts",
    "testdata/types/database.ts",
  ];
  assert.deepEqual(targets({}), new Set(plain));
  // "resolves legacy import map": testdata/import_map.json maps "module-name/" to "./shared/".
  assert.deepEqual(
    targets({ "module-name/": "./testdata/shared/" }),
    new Set([...plain, "testdata/shared/whatever.ts"]),
  );
});

Deno.test("the pattern keeps Go's meaning: `\\s` is ASCII without \\v, `.` crosses \\r, case is ignored", () => {
  const targets = (text: string) =>
    importTargets(text, "a.ts", { imports: {} }).map((t) => t.target);
  assert.deepEqual(targets('export\u00a0const A = "/a.ts"'), []);
  assert.deepEqual(targets('export\vconst A = "/a.ts"'), []);
  assert.deepEqual(targets('export x\ry = "/a.ts"'), ["/a.ts"]);
  assert.deepEqual(targets('EXPORT const A = "./b/../a.ts"'), ["a.ts"]);
});

Deno.test("static_files are uploaded before the walk; a glob without matches is only a warning", async () => {
  const files = memoryFiles({
    "functions/demo/index.ts": "export {};\n",
    "functions/demo/b.html": "<p>b</p>",
    "functions/demo/a.html": "<p>a</p>",
  });
  const walk = await collectUpload({
    files,
    entrypoint: "functions/demo/index.ts",
    staticFiles: ["functions/demo/*.html", "functions/demo/*.pdf"],
  });
  assert.equal(walk.abort, undefined);
  assert.deepEqual(walk.uploaded, [
    "functions/demo/a.html",
    "functions/demo/b.html",
    "functions/demo/index.ts",
  ]);
  assert.deepEqual(walk.warnings, ["no files matched pattern: functions/demo/*.pdf"]);
});

/** File-system use: Deno's file APIs, Workers and `new URL(…, import.meta.url)` (files beside the code), node:fs, file: URLs. */
const FILE_API = new RegExp([
  String
    .raw`\bDeno\.(?:readFile|readTextFile|readDir|readLink|realPath|open|create|stat|lstat|mkdir|makeTempDir|makeTempFile|writeFile|writeTextFile|remove|rename|copyFile|truncate|chmod|chown|symlink|link|utime|watchFs)(?:Sync)?\b`,
  String.raw`\bnew\s+Worker\b`,
  String.raw`\bnew\s+URL\([^)]*\bimport\.meta\.url\b`,
  String.raw`\bimport\.meta\.(?:dirname|filename)\b`,
  String.raw`["'\x60]node:fs\b`,
  String.raw`["'\x60]file:`,
].join("|"));

/** What a deployed module reads from disk, and why that still works deployed. */
type RuntimeRead =
  /** (a) every file it reads is in the upload */
  | { reads: string; uploaded: string[] }
  /** (b) it never runs when deployed */
  | { reads: string; unreached: string }
  /** the scan matched text, not a call */
  | { reads: "nothing"; notARead: string };

// The PGlite adapter is not here: shared/app/storage.ts loads it by a specifier the walk does
// not read, so it is neither uploaded nor bundled (the test below, and bundle_test.ts); nor is
// shared/local/ (the local server, its connection guard and data-folder lock, and the playground's
// files), loaded the same way by shared/app/serve.ts.
const RUNTIME_READS: Record<string, RuntimeRead> = {
  "shared/store/migrations.ts": {
    reads:
      "supabase/migrations/*.sql beside the code (Deno.readDir, Deno.readTextFile); not uploaded",
    unreached: "deployed, the schema comes from `supabase db push`: with Supabase settings or " +
      "under the edge runtime the option migrate is off, and asking for it there is a " +
      "configuration error (shared/config/config.ts)",
  },
};

Deno.test("every file a deployed module reads at run time is uploaded, or never read when deployed", async () => {
  const { walk, modules } = await deployment();
  const touching: string[] = [];
  for (const module of modules) {
    if (FILE_API.test(await Deno.readTextFile(new URL(module, ROOT_URL)))) touching.push(module);
  }
  assert.deepEqual(
    touching,
    Object.keys(RUNTIME_READS).sort(),
    "each deployed module that uses the file system needs a row in RUNTIME_READS",
  );
  for (const [module, row] of Object.entries(RUNTIME_READS)) {
    if (!("uploaded" in row)) continue;
    assert.deepEqual(row.uploaded.filter((path) => !walk.uploaded.includes(path)), [], module);
  }
});
