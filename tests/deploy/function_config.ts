/**
 * A function's `entrypoint`, `import_map` and `static_files` read from
 * `supabase/config.toml` and resolved the way the Supabase CLI resolves them
 * (supabase/cli commit 1d1e7191268e068fe9cb6aba524d1c619a9c727b, `apps/cli-go/`):
 * `pkg/config/config.go` joins each path to `supabase/` (paths in the file are
 * relative to it) and, without `import_map`, takes a `deno.json`/`deno.jsonc`
 * beside the entrypoint; `internal/functions/deploy/deploy.go`
 * `GetFunctionConfig` then falls back to `supabase/functions/<slug>/…` and
 * `supabase/functions/import_map.json`. The project root's `deno.json` is not
 * read by the deploy at all.
 *
 * The TOML reader understands what a function table holds (strings, booleans,
 * arrays of strings, comments) and throws on anything else, as it does on
 * absolute paths (the CLI makes those relative to the working directory).
 */
import { join } from "./go_semantics.ts";
import type { ProjectFiles } from "./project_files.ts";

/** What `writeForm` gets for one function, relative to the project root. */
export interface FunctionUpload {
  enabled: boolean;
  entrypoint: string;
  importMap: string;
  staticFiles: string[];
}

const SUPABASE_DIR = "supabase";
const FUNCTIONS_DIR = "supabase/functions";

/** The function `slug` as `supabase functions deploy <slug>` would upload it. */
export async function readFunctionUpload(
  files: ProjectFiles,
  slug: string,
): Promise<FunctionUpload> {
  const toml = new TextDecoder().decode(await files.open(`${SUPABASE_DIR}/config.toml`));
  const table = functionTable(toml, slug);
  const fromConfig = (value: unknown) => {
    if (typeof value !== "string") throw new Error(`expected a string, got ${value}`);
    // The CLI would make an absolute path relative to the working directory (`toRelPath`).
    if (value.startsWith("/")) throw new Error(`absolute path not supported here: ${value}`);
    return join(SUPABASE_DIR, value);
  };
  const entrypoint = table?.entrypoint
    ? fromConfig(table.entrypoint)
    : join(FUNCTIONS_DIR, slug, "index.ts");
  let importMap = table?.import_map ? fromConfig(table.import_map) : "";
  const candidates = [
    ...[`deno.json`, `deno.jsonc`].map((name) => join(entrypoint, "..", name)),
    ...["deno.json", "deno.jsonc", "import_map.json"].map((name) =>
      join(FUNCTIONS_DIR, slug, name)
    ),
    join(FUNCTIONS_DIR, "import_map.json"),
  ];
  for (const candidate of importMap ? [] : candidates) {
    if (await files.exists(candidate)) {
      importMap = candidate;
      break;
    }
  }
  const staticFiles = ((table?.static_files ?? []) as unknown[])
    .map((value) => value === "" ? "" : fromConfig(value));
  return { enabled: table?.enabled !== false, entrypoint, importMap, staticFiles };
}

/** The `[functions.<slug>]` table of a config.toml, or undefined when it has none. */
export function functionTable(toml: string, slug: string): Record<string, unknown> | undefined {
  const headers = [`[functions.${slug}]`, `[functions."${slug}"]`];
  let table: Record<string, unknown> | undefined;
  let inTable = false;
  const lines = toml.split("\n");
  for (let i = 0; i < lines.length; i++) {
    let line = withoutComment(lines[i]).trim();
    if (line.startsWith("[")) {
      inTable = headers.includes(line);
      if (inTable) table = {};
      continue;
    }
    if (!inTable || line === "") continue;
    const eq = line.indexOf("=");
    if (eq < 0) throw new Error(`config.toml line ${i + 1}: expected key = value`);
    // An array may go on over several lines.
    while (unclosed(line) && i + 1 < lines.length) line += " " + withoutComment(lines[++i]);
    table![line.slice(0, eq).trim()] = parseValue(line.slice(eq + 1).trim(), i + 1);
  }
  return table;
}

function parseValue(text: string, lineNumber: number): unknown {
  if (text === "true" || text === "false") return text === "true";
  if (/^"(?:[^"\\]|\\.)*"$/.test(text)) return JSON.parse(text);
  if (/^'[^']*'$/.test(text)) return text.slice(1, -1);
  if (text.startsWith("[") && text.endsWith("]")) {
    const items = text.slice(1, -1).match(/"(?:[^"\\]|\\.)*"|'[^']*'|[^,\s]+/g) ?? [];
    return items.map((item) => parseValue(item, lineNumber));
  }
  throw new Error(`config.toml line ${lineNumber}: value not understood here: ${text}`);
}

/** The line up to a `#` that is not inside a string. */
function withoutComment(line: string): string {
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#") return line.slice(0, i);
  }
  return line;
}

function unclosed(line: string): boolean {
  const outside = line.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, "");
  return (outside.match(/\[/g) ?? []).length > (outside.match(/]/g) ?? []).length;
}
