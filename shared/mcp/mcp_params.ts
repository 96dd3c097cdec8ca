/**
 * The MCP endpoint's rule for malformed input, in one place (and the same on
 * stdio): a message that is not a JSON-RPC 2.0 request object is -32600
 * (Invalid Request); a well-formed request whose `params` do not fit its
 * method is -32602 (Invalid params), with one sentence saying what to send.
 * The SDK checks params too, but answers a mismatch -32603 with a schema dump;
 * checking here first, against the SDK's own spec schemas, keeps that away
 * from people.
 */
import { specTypeSchemas } from "@modelcontextprotocol/server";

type Message = Record<string, unknown>;

interface SpecSchema {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: { path: PropertyKey[]; message: string }[] };
  };
}

/** What is wrong with a request's params, as one sentence; undefined when nothing is. */
export function checkParams(
  message: Message,
  { modern = false }: { modern?: boolean } = {},
): string | undefined {
  const method = typeof message.method === "string" ? message.method : undefined;
  if (method === undefined || !CLIENT_METHODS.has(method)) return undefined;
  // 2026-07-28 removed these: the SDK answers them 404 -32601, whatever their params.
  if (modern && REMOVED_IN_2026.has(method)) return undefined;
  if (!("params" in message)) {
    if (NEEDS_PARAMS.has(method)) {
      return `Invalid params: ${method} needs params: ${NEEDS_PARAMS.get(method)}`;
    }
    return method in COVERED ? undefined : checkAgainstSpec(method, message);
  }
  const params = message.params;
  if (!isRecord(params)) {
    return `Invalid params: the params of ${method} must be an object, not ${describe(params)}`;
  }
  const rule = RULES[method];
  const problem = rule ? rule(params) : undefined;
  if (problem !== undefined) return problem;
  // The spec's schema is a full parse per request: skip it where the checks here cover every field.
  return isCovered(method, params) ? undefined : checkAgainstSpec(method, message);
}

/**
 * Per method, the params fields the checks here fully cover: params with only
 * these (and a `_meta` without the two fields the spec types) need no spec parse.
 */
interface Covered {
  keys: ReadonlySet<string>;
  check?: (params: Message) => boolean;
}

const LIST: Covered = {
  keys: new Set(["cursor", "_meta"]),
  check: (params) => optionalString(params.cursor),
};

const COVERED: Record<string, Covered> = {
  "tools/call": { keys: new Set(["name", "arguments", "_meta"]) }, // RULES checked name and arguments
  "tools/list": LIST,
  "prompts/list": LIST,
  "resources/list": LIST,
  "resources/templates/list": LIST,
  "ping": { keys: new Set(["_meta"]) },
  "server/discover": { keys: new Set(["_meta"]) },
};

function isCovered(method: string, params: Message): boolean {
  const covered = COVERED[method];
  if (!covered || (covered.check && !covered.check(params))) return false;
  for (const key in params) if (!covered.keys.has(key)) return false;
  const meta = params._meta;
  return meta === undefined ||
    (isRecord(meta) && !("progressToken" in meta) &&
      !("io.modelcontextprotocol/related-task" in meta));
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === "string";
}

/**
 * Does the request claim the 2026-07-28 era (its `MCP-Protocol-Version`
 * header, or the protocol version in its `_meta` envelope)? The SDK decides
 * the era for routing; this only keeps our checks off methods that era removed.
 */
export function claimsModernEra(req: Request, body: unknown): boolean {
  const header = req.headers.get("mcp-protocol-version") ?? "";
  if (header >= "2026-07-28") return true;
  const meta = isRecord(body) && isRecord(body.params) ? body.params._meta : undefined;
  const version = isRecord(meta) ? meta["io.modelcontextprotocol/protocolVersion"] : undefined;
  return typeof version === "string" && version >= "2026-07-28";
}

let specSchemas: Map<string, SpecSchema> | undefined;

/** The spec's own schema of the method's request, when it has one (built once). */
function checkAgainstSpec(method: string, message: Message): string | undefined {
  specSchemas ??= new Map(
    Object.values(specTypeSchemas as Record<string, unknown>).flatMap((schema) => {
      const shape = (schema as { shape?: { method?: { value?: unknown } } }).shape;
      const name = shape?.method?.value;
      return typeof name === "string" ? [[name, schema as SpecSchema] as const] : [];
    }),
  );
  const schema = specSchemas.get(method);
  if (!schema || !("id" in message)) return undefined;
  const parsed = schema.safeParse({ method, params: message.params });
  const issue = parsed.success ? undefined : parsed.error?.issues[0];
  if (!issue) return undefined;
  const where = issue.path.map(String).join(".") || "params";
  return `Invalid params for ${method}: ${where}: ${issue.message}`;
}

/** The requests a client sends a server (others are left to the SDK: -32601). */
const CLIENT_METHODS = new Set([
  "initialize",
  "ping",
  "server/discover",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
]);

const REMOVED_IN_2026 = new Set(["initialize", "ping"]);

const NEEDS_PARAMS = new Map([
  ["tools/call", '{"name": "<tool>", "arguments": {...}} with a tool name from tools/list'],
  ["resources/read", '{"uri": "<resource URI>"}'],
  ["prompts/get", '{"name": "<prompt>", "arguments": {...}} with a name from prompts/list'],
  ["completion/complete", '{"ref": {...}, "argument": {"name": "...", "value": "..."}}'],
]);

const RULES: Record<string, (params: Message) => string | undefined> = {
  "tools/call": (params) =>
    nonEmptyString(params.name)
      ? objectOrAbsent(params.arguments, "tools/call: arguments")
      : `Invalid params: tools/call needs "name", the name of a tool from tools/list (got ${
        describe(params.name)
      })`,
  "resources/read": (params) =>
    nonEmptyString(params.uri)
      ? undefined
      : `Invalid params: resources/read needs "uri", a resource URI from resources/list or a template (got ${
        describe(params.uri)
      })`,
  "prompts/get": (params) => {
    if (!nonEmptyString(params.name)) {
      return `Invalid params: prompts/get needs "name", a prompt from prompts/list (got ${
        describe(params.name)
      })`;
    }
    const args = params.arguments;
    if (args === undefined) return undefined;
    return isRecord(args) && Object.values(args).every((v) => typeof v === "string")
      ? undefined
      : "Invalid params: prompts/get arguments must be an object of strings";
  },
  "completion/complete": (params) => {
    const { ref, argument } = params;
    if (!isRecord(ref) || typeof ref.type !== "string") {
      return 'Invalid params: completion/complete needs "ref", like {"type": "ref/prompt", "name": "refine"}';
    }
    return isRecord(argument) && typeof argument.name === "string" &&
        typeof argument.value === "string"
      ? undefined
      : 'Invalid params: completion/complete needs "argument": {"name": "...", "value": "..."}';
  },
};

function objectOrAbsent(value: unknown, what: string): string | undefined {
  return value === undefined || isRecord(value)
    ? undefined
    : `Invalid params: ${what} must be an object, not ${describe(value)}`;
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string"
    ? `the string ${JSON.stringify(value.slice(0, 40))}`
    : `a ${typeof value}`;
}

function isRecord(value: unknown): value is Message {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
