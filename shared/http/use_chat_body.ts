/**
 * The body `useChat` (the Vercel AI SDK's default chat transport) sends —
 * `{id, messages: UIMessage[], trigger, messageId?, ...body}`, each message
 * `{id, role, parts: [{type: "text", text}, ...]}` — read as a loop request:
 * the chat's `id` is the session unless `sessionId` is given, `mode` defaults
 * to "general", and each message's text parts become its content.
 */

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

/** The text parts of a UI message, one per line (tool, data and file parts are the app's own). */
function textOf(parts: unknown[]): string {
  return parts.flatMap((part) =>
    isRecord(part) && part.type === "text" && typeof part.text === "string" ? [part.text] : []
  ).join("\n");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
