/**
 * The body `useChat` (the Vercel AI SDK's default chat transport) sends —
 * `{id, messages: UIMessage[], trigger, messageId?, ...body}`, each message
 * `{id, role, parts: [{type: "text", text}, ...]}` — read as a loop request:
 * the chat's `id` is the session unless `sessionId` is given, `mode` defaults
 * to "general", and each message's text parts become its content.
 *
 * A body whose last message is the assistant's with tool parts in state
 * `approval-responded` (what `addToolApprovalResponse` leaves, sent again by
 * `sendAutomaticallyWhen` or `sendMessage()`) is a person's answer to a run
 * waiting for approval: {@link approvalResponseOf} reads it.
 */
import { AppError } from "../errors.ts";
import { ApprovalDecision } from "../contracts.ts";

/** `body` as an `MCPRequest` body when it is a useChat body; any other body as it is. */
export function fromUseChatBody(body: unknown): unknown {
  if (!isRecord(body) || !Array.isArray(body.messages)) return body;
  const uiMessages = body.messages.some((m) => isRecord(m) && Array.isArray(m.parts));
  if (!uiMessages && body.trigger === undefined) return body;
  const { id, trigger: _trigger, messageId: _messageId, messages, ...rest } = body;
  return {
    mode: "general",
    ...(typeof id === "string" && rest.sessionId === undefined ? { sessionId: id } : {}),
    ...rest,
    messages: messages.map((message) =>
      isRecord(message) && Array.isArray(message.parts)
        ? { role: message.role, content: textOf(message.parts) }
        : message
    ),
  };
}

/** A person's answers, sent back by `useChat`, to the calls a run waits for. */
export interface ApprovalResponse {
  /** The run (from the message's `data-run` part, or its metadata). */
  runId: string;
  /** The assistant message the chat continues: the continuation keeps its id. */
  messageId?: string;
  approvals: ApprovalDecision[];
  /** The tool parts the message already has (the continuation finishes them, never repeats them). */
  toolCallIds: string[];
}

/**
 * The approval response in a useChat body, if it is one. The message is the
 * client's, so it is untrusted: the run is looked up as the caller's, and
 * each approval id must name one of its pending calls (resume.ts).
 */
export function approvalResponseOf(body: unknown): ApprovalResponse | undefined {
  if (!isRecord(body) || !Array.isArray(body.messages)) return undefined;
  const last = body.messages.at(-1);
  if (!isRecord(last) || last.role !== "assistant" || !Array.isArray(last.parts)) return undefined;
  const tools = last.parts.filter(isToolPart);
  const answered = tools.filter((part) => part.state === "approval-responded");
  if (answered.length === 0) return undefined;
  const runId = runIdOf(last);
  if (!runId) {
    throw new AppError(
      "VALIDATION_FAILED",
      "The approval response names no run: send the assistant message back with its data-run part (or metadata.runId) as the stream gave it",
    );
  }
  const approvals = answered.map((part, i) => {
    const approval = isRecord(part.approval) ? part.approval : {};
    const parsed = ApprovalDecision.safeParse({
      id: approval.id,
      approved: approval.approved,
      ...(approval.reason === undefined ? {} : { reason: approval.reason }),
    });
    if (parsed.success) return parsed.data;
    const [issue] = parsed.error.issues;
    throw new AppError(
      "VALIDATION_FAILED",
      `The approval response is invalid: part ${i} (${part.toolCallId}): approval.${
        issue.path.join(".")
      }: ${issue.message}`,
      { details: { issues: parsed.error.issues.slice(0, 20) } },
    );
  });
  return {
    runId,
    ...(typeof body.messageId === "string" ? { messageId: body.messageId } : {}),
    approvals,
    toolCallIds: tools.map((part) => part.toolCallId),
  };
}

type ToolPart = Record<string, unknown> & { toolCallId: string; state: unknown };

/** A tool part of a UI message (`dynamic-tool`, or `tool-<name>`). */
function isToolPart(part: unknown): part is ToolPart {
  return isRecord(part) && typeof part.type === "string" &&
    (part.type === "dynamic-tool" || part.type.startsWith("tool-")) &&
    typeof part.toolCallId === "string";
}

/** The run a message came from: its `data-run` part, else `metadata.runId`. */
function runIdOf(message: Record<string, unknown>): string | undefined {
  const part = (message.parts as unknown[]).findLast((p) =>
    isRecord(p) && p.type === "data-run" && isRecord(p.data)
  ) as { data: Record<string, unknown> } | undefined;
  const metadata = isRecord(message.metadata) ? message.metadata : {};
  const runId = part?.data.runId ?? metadata.runId;
  return typeof runId === "string" && runId.length > 0 && runId.length <= 100 ? runId : undefined;
}

/** The text parts of a UI message, one per line (tool, data and file parts are the app's own). */
function textOf(parts: unknown[]): string {
  return parts.flatMap((part) =>
    isRecord(part) && part.type === "text" && typeof part.text === "string" ? [part.text] : []
  ).join("\n");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
