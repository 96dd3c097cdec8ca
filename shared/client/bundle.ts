/**
 * The web client as one ES module for browsers and Node, with
 * eventsource-parser inlined and no other import: what a web app that does
 * not use Deno copies in. `deno task build:client [path]` writes it (default
 * `dist/mcp-loop-client.js`) and its types beside it (`dist/mcp-loop-client.d.ts`);
 * the playground serves the same bundle.
 */

const ROOT = new URL("../../", import.meta.url);

/** The client as one browser module; cache paths in its comments made machine-independent. */
export async function bundleClient(): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "browser",
      "--format",
      "esm",
      "shared/client/mcp_loop_client.ts",
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return new TextDecoder().decode(output.stdout)
    .replace(/^\/\/ .*registry\.npmjs\.org\/(.*)$/gm, "// npm:$1");
}

if (import.meta.main) {
  const path = Deno.args[0] ?? "dist/mcp-loop-client.js";
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
  await Deno.mkdir(dir, { recursive: true });
  // Imported here only: the playground's build, which bundles too, need not load TypeScript.
  const { clientDeclarations, declarationPath } = await import("./client_declarations.ts");
  await Deno.writeTextFile(path, await bundleClient());
  await Deno.writeTextFile(declarationPath(path), await clientDeclarations());
  console.log(`wrote ${path} and ${declarationPath(path)}`);
}
