/**
 * The few pieces of Go's standard library the Supabase CLI's upload walk leans
 * on, with Go's behaviour rather than Node's or Deno's: `path` (slash paths,
 * purely lexical), `io/fs.ValidPath`, `strings.TrimSpace`, `path.Match`, and
 * the RE2 pattern syntax of `importPathPattern`. Strings here are JS strings;
 * the functions only look at ASCII `/` and `.`, so bytes and code units agree.
 */

/** Go's `path.Clean`: the shortest equivalent slash path, purely lexically. */
export function clean(path: string): string {
  if (path === "") return ".";
  const rooted = path.startsWith("/");
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") out.push(segment);
    else if (out.length > 0 && out.at(-1) !== "..") out.pop();
    else if (!rooted) out.push("..");
  }
  const cleaned = (rooted ? "/" : "") + out.join("/");
  return cleaned === "" ? "." : cleaned;
}

/** Go's `path.Join`: the non-empty elements joined with `/`, cleaned ("" if none). */
export function join(...elements: string[]): string {
  const parts = elements.filter((element) => element !== "");
  return parts.length === 0 ? "" : clean(parts.join("/"));
}

/** Go's `path.Dir`: everything before the last `/`, cleaned. */
export function dir(path: string): string {
  return clean(path.slice(0, path.lastIndexOf("/") + 1));
}

/** Go's `path.Ext`: from the last `.` of the last element, or "". */
export function ext(path: string): string {
  for (let i = path.length - 1; i >= 0 && path[i] !== "/"; i--) {
    if (path[i] === ".") return path.slice(i);
  }
  return "";
}

/** Go's `path.Base`: the last element ("." for "", "/" for all slashes). */
export function base(path: string): string {
  if (path === "") return ".";
  const trimmed = path.replace(/\/+$/, "");
  return trimmed === "" ? "/" : trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

/**
 * Go's `io/fs.ValidPath`, which every `fs.FS` `Open` checks first (afero's
 * `IOFS.Open` too): unrooted, no empty, `.` or `..` element, no trailing `/`.
 */
export function validPath(name: string): boolean {
  if (name === ".") return true;
  return name.split("/").every((element) => element !== "" && element !== "." && element !== "..");
}

// unicode.IsSpace: ASCII \t \n \v \f \r space, U+0085, U+00A0 and the Unicode spaces (Zs, Zl, Zp).
// Unlike String.prototype.trim it keeps U+FEFF and drops U+0085.
const GO_SPACE =
  "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, "gu");

/** Go's `strings.TrimSpace`. */
export function trimSpace(text: string): string {
  return text.replace(TRIM, "");
}

/**
 * A Go RE2 pattern as a JS RegExp with the same matches, for the syntax
 * `importPathPattern` uses: a leading `(?i)` becomes the `i` flag (with `u`,
 * JS folds case by Unicode simple folding as RE2 does: `ſ` matches `s`); `.`
 * becomes `[^\n]` (RE2's `.` stops only at `\n`, JS's also at `\r`, U+2028,
 * U+2029); `\s` becomes `[\t\n\f\r ]` (RE2's Perl class, ASCII only, no `\v`);
 * a literal `{` or `}` outside a class is escaped (the `u` flag requires it).
 * Both engines pick the leftmost match and the same submatches for a pattern
 * without backreferences (RE2's leftmost-first mode, which Go's
 * `regexp.MustCompile` uses, mirrors backtracking), so `matchAll` over a text
 * yields what Go's `FindAllStringSubmatch(text, -1)` yields. Throws on any
 * other syntax rather than guess.
 */
export function goRegExp(pattern: string): RegExp {
  let flags = "gu";
  let source = pattern;
  if (source.startsWith("(?i)")) [flags, source] = ["giu", source.slice(4)];
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const next = source[++i];
      if (next === "s" && !inClass) out += "[\\t\\n\\f\\r ]";
      else if ("()[]{}.\\".includes(next)) out += `\\${next}`;
      else throw new Error(`goRegExp: escape \\${next} not translated`);
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
    } else if (c === ".") out += "[^\\n]";
    else if (c === "{" || c === "}") out += `\\${c}`;
    else if (c === "(" && source[i + 1] === "?" && source[i + 2] !== ":") {
      throw new Error(`goRegExp: group flags at ${i} not translated`);
    } else out += c;
  }
  return new RegExp(out, flags);
}

/**
 * Go's `path.Match` as a RegExp over one name: `*` any run of non-`/`, `?`
 * one non-`/`, `[...]` a class (`^` negates), `\\` escapes the next character.
 */
export function matchPattern(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "\\") out += escapeRegExp(pattern[++i] ?? "\\");
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) throw new Error(`syntax error in pattern: ${pattern}`);
      const body = pattern.slice(i + 1, end);
      out += body.startsWith("^") ? `[^/${body.slice(1)}]` : `[${body}]`;
      i = end;
    } else out += escapeRegExp(c);
  }
  return new RegExp(`^${out}$`, "u");
}

/** afero's `hasMeta` (`match.go`): whether `path` holds `*`, `?` or `[`. */
export function hasMeta(path: string): boolean {
  return /[*?[]/.test(path);
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
