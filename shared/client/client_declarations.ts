/**
 * The bundled client's types as one self-contained `.d.ts`, written beside
 * `dist/mcp-loop-client.js` so that a TypeScript app that copies the bundle
 * gets the types too. TypeScript's `transpileDeclaration` declares
 * `mcp_loop_client.ts`, `client_error.ts` and `types.ts` one file at a time
 * (no module resolution: every export has an explicit type), and they are
 * stitched into one file without the imports between them. Any other import
 * left in a declaration is an error, so the file never needs zod or
 * eventsource-parser (the client's plumbing, `client_http.ts`, appears in no
 * declaration, so its import is dropped).
 */
import ts from "typescript";

const FILES = ["mcp_loop_client.ts", "client_error.ts", "types.ts"];
/** The modules the declarations may name: they are stitched in. */
const STITCHED = new Set(["./client_error.ts", "./types.ts"]);

/** The `.d.ts` of the bundled client; throws when a declaration would need another module. */
export async function clientDeclarations(): Promise<string> {
  const sources = await Promise.all(
    FILES.map((file) => Deno.readTextFile(new URL(file, import.meta.url))),
  );
  const [client, error, types] = FILES.map((file, i) =>
    statements(declare(file, sources[i]), file)
  );
  return [
    `// Written by \`deno task build:client\` from shared/client/${FILES.join(", ")}:\n` +
    "// edit those, not this file. It needs the DOM lib or @types/node (fetch, URL, AbortSignal).",
    moduleDoc(sources[0]),
    ...client,
    ...error,
    "// The wire types.",
    ...types,
  ].join("\n\n") + "\n";
}

/** Where TypeScript looks for the types of the module at `path`: `x.js` → `x.d.ts`. */
export function declarationPath(path: string): string {
  const match = path.match(/^(.*)\.(m?)js$/);
  return match ? `${match[1]}.d.${match[2]}ts` : `${path}.d.ts`;
}

function declare(file: string, source: string): string {
  const { outputText, diagnostics = [] } = ts.transpileDeclaration(source, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: { strict: true },
  });
  if (diagnostics.length > 0) {
    const messages = new Set(
      diagnostics.map((d) =>
        ts.flattenDiagnosticMessageText(d.messageText, " ").replace(/\.$/, "")
      ),
    );
    throw new Error(
      `Cannot declare shared/client/${file} on its own: ${[...messages].join("; ")}. ` +
        "Give each export an explicit type",
    );
  }
  return outputText;
}

/** Each top-level declaration with its doc comment, the stitched import and re-export left out. */
function statements(declarations: string, file: string): string[] {
  const sf = ts.createSourceFile(`${file}.d.ts`, declarations, ts.ScriptTarget.Latest, true);
  const kept: string[] = [];
  for (const statement of sf.statements) {
    const from = moduleSpecifier(statement);
    if (from !== undefined && STITCHED.has(from)) continue;
    if (
      from !== undefined || ts.isImportEqualsDeclaration(statement) ||
      /\bimport\(/.test(statement.getText(sf))
    ) {
      throw new Error(
        `The declarations of shared/client/${file} import "${from ?? statement.getText(sf)}": ` +
          `the .d.ts must stand alone; declare the type in shared/client/types.ts instead`,
      );
    }
    kept.push(withDoc(sf, statement));
  }
  return kept;
}

function moduleSpecifier(statement: ts.Statement): string | undefined {
  if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) return undefined;
  const specifier = statement.moduleSpecifier;
  return specifier && ts.isStringLiteral(specifier) ? specifier.text : undefined;
}

/** The statement's text from its own doc comment (the last one before it, not a file's). */
function withDoc(sf: ts.SourceFile, statement: ts.Statement): string {
  const doc = ts.getLeadingCommentRanges(sf.text, statement.getFullStart())?.at(-1);
  const start = doc && sf.text.startsWith("/**", doc.pos) ? doc.pos : statement.getStart(sf);
  return sf.text.slice(start, statement.getEnd());
}

/** The client module's own doc comment (it introduces the API, with an example). */
function moduleDoc(source: string): string {
  const first = ts.getLeadingCommentRanges(source, 0)?.[0];
  return first ? source.slice(first.pos, first.end) : "";
}
