/**
 * The headers of the remote client's requests. Both eras: the configured
 * ones, `Mcp-Session-Id` once a 2025 session has one (not on `initialize`),
 * `MCP-Protocol-Version` once negotiated (2025-11-25 basic/transports §Session
 * Management, §Protocol Version Header). 2026-07-28 (draft basic/transports
 * "Standard Request Headers" and "Custom Headers from Tool Parameters",
 * SEP-2243): the version the body's envelope claims, `Mcp-Method`, `Mcp-Name`
 * mirroring a `tools/call`'s tool name, and `Mcp-Param-<Name>` for each
 * argument whose property in the tool's `inputSchema` carries
 * `x-mcp-header: "<Name>"`. A value that is not plain visible ASCII is sent as
 * `=?base64?<its UTF-8 in base64>?=`. A tool whose declarations break the
 * rules is one the client MUST NOT list. The same rules as the SDK client's
 * (client `streamableHttp.ts`, core `shared/mcpParamHeaders.ts`).
 */
import type { JsonRpcMessage } from "./remote_error.ts";

/** The request headers for `message` (none for a GET or DELETE). */
export function requestHeaders(
  { base, sessionId, version, message, params = {} }: {
    base?: Record<string, string>;
    sessionId?: string;
    version?: string;
    message?: JsonRpcMessage;
    /** The `Mcp-Param-*` headers of a call. */
    params?: Record<string, string>;
  },
): Headers {
  const headers = new Headers(base);
  if (sessionId !== undefined && message?.method !== "initialize") {
    headers.set("mcp-session-id", sessionId);
  }
  const meta = message?.params?._meta as Record<string, unknown> | undefined;
  const claimed = meta?.["io.modelcontextprotocol/protocolVersion"];
  const negotiated = typeof claimed === "string" ? claimed : version;
  if (negotiated !== undefined) headers.set("mcp-protocol-version", negotiated);
  // Derived from requests only (the SDK client's rule), so a 2025 exchange never carries them.
  if (typeof claimed !== "string" || message?.method === undefined || message.id === undefined) {
    return headers;
  }
  headers.set("mcp-method", message.method);
  const name = message.method === "tools/call" ? message.params?.name : undefined;
  if (typeof name === "string") headers.set("mcp-name", encodeHeaderValue(name));
  for (const [key, value] of Object.entries(params)) headers.set(key, value);
  return headers;
}

/** One `x-mcp-header` declaration: the argument's path and the header's `{Name}`. */
export interface ParamDeclaration {
  path: string[];
  header: string;
}

/** RFC 9110 §5.1 `token`: what a header's `{Name}` may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The types an `x-mcp-header` property may have (`number` is not one of them). */
const HEADER_TYPES = new Set(["string", "integer", "boolean"]);
/** Keywords a declaration may not sit under: only a chain of `properties` reaches one. */
const UNREACHABLE = [
  "items",
  "prefixItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions",
];
/** Of those, the ones whose value is an object of subschemas. */
const SCHEMA_MAPS = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"]);

/** The tool's declarations, or why they are invalid (then the tool is not to be listed). */
export function paramDeclarations(inputSchema: unknown): ParamDeclaration[] | { invalid: string } {
  const found: ParamDeclaration[] = [];
  const seen = new Set<string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (typeof node !== "object" || node === null) return undefined;
    const schema = node as Record<string, unknown>;
    if ("x-mcp-header" in schema) {
      const where = path.join(".") || "the schema's root";
      const header = schema["x-mcp-header"];
      if (!reachable || path.length === 0) {
        return `${where}: x-mcp-header is only allowed on a property reached through "properties"`;
      }
      if (typeof header !== "string" || !TOKEN.test(header)) {
        return `${where}: x-mcp-header must be an HTTP token, not ${JSON.stringify(header)}`;
      }
      if (!HEADER_TYPES.has(String(schema.type))) {
        return `${where}: x-mcp-header needs a string, integer or boolean property`;
      }
      if (seen.has(header.toLowerCase())) return `x-mcp-header "${header}" is declared twice`;
      seen.add(header.toLowerCase());
      found.push({ path, header });
    }
    const properties = schema.properties;
    if (typeof properties === "object" && properties !== null) {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault) return fault;
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : SCHEMA_MAPS.has(keyword) && typeof sub === "object" && sub !== null
        ? Object.values(sub)
        : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  return fault === undefined ? found : { invalid: fault };
}

/** The tools a 2026-07-28 client may list: not one whose `x-mcp-header` declarations are invalid. */
export function callableTools<T extends { name: string; inputSchema: unknown }>(
  tools: T[],
): { tools: T[]; excluded: { name: string; why: string }[] } {
  const excluded: { name: string; why: string }[] = [];
  const kept = tools.filter((tool) => {
    const declared = paramDeclarations(tool.inputSchema);
    if (!Array.isArray(declared)) excluded.push({ name: tool.name, why: declared.invalid });
    return Array.isArray(declared);
  });
  return { tools: kept, excluded };
}

/** The `Mcp-Param-*` headers of a call: one per declared argument that has a primitive value. */
export function paramHeaders(
  declarations: ParamDeclaration[],
  args: Record<string, unknown>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, header } of declarations) {
    let value: unknown = args;
    for (const key of path) {
      value = typeof value === "object" && value !== null
        ? (value as Record<string, unknown>)[key]
        : undefined;
    }
    const text = primitiveText(value);
    if (text !== undefined) headers[`Mcp-Param-${header}`] = encodeHeaderValue(text);
  }
  return headers;
}

/** A header value as sent: as is when plain visible ASCII (inner spaces and tabs allowed), else base64. */
export function encodeHeaderValue(value: string): string {
  const plain = value.length > 0 && value === value.trim() && /^[\x20-\x7e\t]*$/.test(value) &&
    !(value.startsWith("=?base64?") && value.endsWith("?="));
  if (plain) return value;
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/** A string, boolean or number argument as header text (null, absent and other values: none). */
function primitiveText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" && Number.isFinite(value)) {
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? undefined : String(value);
  }
  return undefined;
}
