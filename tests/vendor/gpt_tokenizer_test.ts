/**
 * The vendored cl100k_base files (shared/vendor/gpt-tokenizer) are the npm
 * package's files minus their source-map lines, exactly the ones the encoding
 * imports, and they give the same tokens as the package the import map pins.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import fc from "fast-check";
import * as npm from "gpt-tokenizer/encoding/cl100k_base";
import * as vendoredModule from "../../shared/vendor/gpt-tokenizer/encoding/cl100k_base.js";
import { denoInfo } from "../deploy/bundle_graph.ts";
import { CORPUS } from "./tokenizer_corpus.ts";

const VERSION = "4.0.0";
const ROOT = new URL("../../", import.meta.url);
const VENDOR = new URL("shared/vendor/gpt-tokenizer/", ROOT).pathname;
const MAP_LINE = /^\/\/# sourceMappingURL=.*(?:\n|$)/gm;
/** The vendored module, typed as the package it is copied from (its JS alone types poorly). */
const vendored = vendoredModule as unknown as typeof npm;

/** The package's folder in Deno's npm cache (the tests' imports of it put it there). */
async function packageDir(): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  const { npmCache } = JSON.parse(new TextDecoder().decode(output.stdout));
  return join(npmCache, "registry.npmjs.org", "gpt-tokenizer", VERSION);
}

function vendoredFiles(dir = VENDOR, out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) vendoredFiles(path, out);
    else if (entry.name.endsWith(".js")) out.push(relative(VENDOR, path));
  }
  return out.sort();
}

Deno.test("the import map pins the gpt-tokenizer version that is vendored", async () => {
  const { imports } = JSON.parse(await Deno.readTextFile(new URL("import_map.json", ROOT)));
  assert.equal(
    imports["gpt-tokenizer/"],
    `npm:/gpt-tokenizer@${VERSION}/`,
    "refresh shared/vendor/gpt-tokenizer as its README says, then change VERSION here",
  );
  const readme = await Deno.readTextFile(join(VENDOR, "README.md"));
  assert.match(readme, new RegExp(`\\*\\*${VERSION.replaceAll(".", "\\.")}\\*\\*`));
});

Deno.test("the vendored files are the package's, source-map lines removed, and exactly those cl100k_base imports", async () => {
  const dir = await packageDir();
  const info = await denoInfo(join(dir, "esm/encoding/cl100k_base.js"), ROOT);
  const needed = info.modules.flatMap((module) =>
    module.local?.endsWith(".js") ? [relative(join(dir, "esm"), module.local)] : []
  ).sort();
  assert.equal(needed.length, 21);
  assert.deepEqual(vendoredFiles(), needed);
  for (const file of needed) {
    const original = await Deno.readTextFile(join(dir, "esm", file));
    const copy = await Deno.readTextFile(join(VENDOR, file));
    assert.equal(copy, original.replace(MAP_LINE, ""), file);
    assert.doesNotMatch(copy, MAP_LINE, file);
  }
  assert.equal(
    await Deno.readTextFile(join(VENDOR, "LICENSE")),
    await Deno.readTextFile(join(dir, "LICENSE")),
  );
});

Deno.test("the vendored encoder gives the package's tokens, counts and decodings on a varied corpus", () => {
  for (const text of CORPUS) {
    const tokens = npm.encode(text);
    assert.deepEqual(vendored.encode(text), tokens, JSON.stringify(text.slice(0, 40)));
    assert.equal(vendored.countTokens(text), tokens.length);
    assert.equal(vendored.decode(tokens), npm.decode(tokens));
    assert.equal(vendored.isWithinTokenLimit(text, 100), npm.isWithinTokenLimit(text, 100));
  }
});

Deno.test("the vendored encoder agrees with the package on arbitrary strings", () => {
  const text = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 400 }),
    fc.string({ unit: "binary", maxLength: 400 }),
    fc.string({
      unit: fc.constantFrom(" ", "\n", "a", "1", "'", "é", "日", "👍", "<", "|"),
      maxLength: 400,
    }),
  );
  fc.assert(
    fc.property(text, (value) => {
      assert.deepEqual(vendored.encode(value), npm.encode(value));
    }),
    { seed: 20_260_601, numRuns: 500 },
  );
});

Deno.test("special-token text is refused the same way by both", () => {
  const text = "before <|endoftext|> after";
  assert.throws(() => npm.encode(text), /Disallowed special token found: <\|endoftext\|>/);
  assert.throws(() => vendored.encode(text), /Disallowed special token found: <\|endoftext\|>/);
});
