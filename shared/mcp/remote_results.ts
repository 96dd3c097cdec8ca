/**
 * What the remote client accepts from a server, checked as strictly as the
 * SDK client's schemas check it: a JSON-RPC response is a result object or an
 * error; in 2026-07-28 a result says `resultType: "complete"` (an
 * `input_required` one asks for input this client does not offer); a
 * `tools/list` page holds tools with a name and an object input schema; a
 * `tools/call` result holds a content array. An `input_required` result with
 * only a `requestState` (2026-07-28 basic/patterns/mrtr: the client "MAY
 * retry the original request immediately", echoing it) is passed back for
 * the retry ({@link retryState}).
 */
import type { JsonSchemaValidatorProvider } from "./json_schema_validator.ts";
import { type JsonRpcMessage, RemoteMcpError } from "./remote_error.ts";

/** A tool as `tools/list` describes it. */
export interface RemoteTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** A `tools/call` result. */
export interface CallToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** A compiled output schema. */
type OutputCheck = ReturnType<JsonSchemaValidatorProvider["getValidator"]>;

/** The result of a response, or its JSON-RPC error as a RemoteMcpError. */
export function resultOf(
  answer: JsonRpcMessage,
  { method, modern }: { method: string; modern: boolean },
): Record<string, unknown> {
  const { error, result } = answer;
  if (error !== undefined) {
    const code = typeof error?.code === "number" ? error.code : -32603;
    const message = typeof error?.message === "string" ? error.message : "no message";
    throw new RemoteMcpError("rpc", `${message} (JSON-RPC ${code})`, {
      rpc: { code, message, data: error?.data },
    });
  }
  if (typeof result !== "object" || result === null || Array.isArray(result)) {
    throw new RemoteMcpError("protocol", `The result of ${method} is not an object`);
  }
  const record = result as Record<string, unknown>;
  // The probe's result is read leniently (the SDK's DiscoverResult schema defaults resultType).
  if (!modern || method === "server/discover") return record;
  // 2026-07-28 Result.resultType: "Servers implementing this protocol version MUST include this field".
  if (record.resultType === "complete") return record;
  if (record.resultType === "input_required") {
    const asked = Object.values(record.inputRequests ?? {}).map((r) =>
      (r as { method?: unknown }).method
    );
    // Only these three requests may be answered input_required (basic/patterns/mrtr).
    const retryable = ["tools/call", "prompts/get", "resources/read"].includes(method);
    if (asked.length === 0 && retryable && typeof record.requestState === "string") return record;
    throw new RemoteMcpError(
      "protocol",
      asked.length > 0
        ? `The server asked for input this client does not offer (${
          asked.join(", ")
        }) to answer ${method}`
        : `The server answered ${method} input_required with neither inputRequests nor a requestState`,
    );
  }
  throw new RemoteMcpError(
    "protocol",
    record.resultType === undefined
      ? `The result of ${method} has no resultType, which 2026-07-28 requires`
      : `Unsupported result type ${JSON.stringify(record.resultType)} for ${method}`,
  );
}

/**
 * The `requestState` to send `method` again with, when `result` is an
 * `input_required` that asks for nothing but a retry (see {@link resultOf}).
 */
export function retryState(result: Record<string, unknown>): string | undefined {
  return result.resultType === "input_required" && typeof result.requestState === "string"
    ? result.requestState
    : undefined;
}

/** A `tools/list` walk that has not ended after this many pages is refused (the SDK client's cap). */
const MAX_PAGES = 64;

/**
 * Every tool of a paginated `tools/list` (2025-11-25 server/utilities/pagination): pages
 * until one has no `nextCursor`; a page that repeats the one before ends the walk, as in
 * the SDK client.
 */
export async function allTools(
  page: (cursor: string | undefined) => Promise<Record<string, unknown>>,
): Promise<RemoteTool[]> {
  const tools: RemoteTool[] = [];
  let previous = "";
  let cursor: string | undefined;
  for (let pages = 0; pages === 0 || cursor !== undefined; pages++) {
    if (pages === MAX_PAGES) {
      throw new RemoteMcpError("protocol", `tools/list did not end after ${MAX_PAGES} pages`);
    }
    const result = await page(cursor);
    const next = typeof result.nextCursor === "string" ? result.nextCursor : undefined;
    const listed = JSON.stringify(toolsOf(result));
    if (next === cursor && listed === previous) break;
    previous = listed;
    tools.push(...toolsOf(result));
    cursor = next;
  }
  return tools;
}

/** The tools of a `tools/list` page. */
export function toolsOf(page: Record<string, unknown>): RemoteTool[] {
  if (!Array.isArray(page.tools)) {
    throw new RemoteMcpError("protocol", "The tools/list result has no tools array");
  }
  for (const tool of page.tools as Partial<RemoteTool>[]) {
    const schema = tool?.inputSchema as Record<string, unknown> | undefined;
    if (typeof tool?.name !== "string" || typeof schema !== "object" || schema?.type !== "object") {
      throw new RemoteMcpError(
        "protocol",
        `The tools/list result has a tool without a name or an object inputSchema (${
          JSON.stringify(tool?.name ?? null)
        })`,
      );
    }
  }
  return page.tools as RemoteTool[];
}

/** A `tools/call` result (its content defaults to none, as in the specification's schema). */
export function callResultOf(result: Record<string, unknown>): CallToolResult {
  const content = result.content ?? [];
  const valid = Array.isArray(content) &&
    content.every((c) => typeof c === "object" && c !== null && typeof c.type === "string") &&
    (result.isError === undefined || typeof result.isError === "boolean");
  if (!valid) {
    throw new RemoteMcpError("protocol", "The tools/call result's content or isError is malformed");
  }
  return { ...result, content } as CallToolResult;
}

/** The tool's output-schema check; an output schema that does not compile fails the call before it is sent. */
export function compileOutputSchema(
  validator: JsonSchemaValidatorProvider,
  tool: RemoteTool,
): OutputCheck {
  try {
    return validator.getValidator(tool.outputSchema);
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 200);
    throw new RemoteMcpError(
      "protocol",
      `Tool '${tool.name}' has an invalid outputSchema: ${message}`,
    );
  }
}

/** "If an output schema is provided … Clients SHOULD validate structured results against this schema". */
export function checkStructuredContent(
  result: CallToolResult,
  check: OutputCheck,
  name: string,
): void {
  if (result.isError) return;
  if (result.structuredContent === undefined) {
    throw new RemoteMcpError(
      "protocol",
      `Tool ${name} has an output schema but did not return structured content`,
    );
  }
  let checked: ReturnType<OutputCheck>;
  try {
    checked = check(result.structuredContent);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new RemoteMcpError("protocol", `Failed to validate structured content: ${why}`);
  }
  if (!checked.valid) {
    throw new RemoteMcpError(
      "protocol",
      `Structured content does not match the tool's output schema: ${checked.errorMessage}`,
    );
  }
}
