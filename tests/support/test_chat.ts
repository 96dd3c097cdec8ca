/**
 * `useChat` without a browser: the AI SDK's own `AbstractChat` over a plain
 * in-memory `ChatState` (what `@ai-sdk/react` does with React state), with its
 * `DefaultChatTransport` posting to the app through `fetch`.
 */
import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";

/** A framework-free chat (the subclass the AI SDK's UI packages each write). */
export class TestChat extends AbstractChat<UIMessage> {
  constructor(init: ChatInit<UIMessage>) {
    let messages: UIMessage[] = init.messages ?? [];
    const state: ChatState<UIMessage> = {
      status: "ready",
      error: undefined,
      get messages() {
        return messages;
      },
      set messages(value: UIMessage[]) {
        messages = value;
      },
      pushMessage: (m) => void (messages = messages.concat(m)),
      popMessage: () => void (messages = messages.slice(0, -1)),
      replaceMessage: (i, m) => void (messages = messages.with(i, m)),
      snapshot: (v) => structuredClone(v),
    };
    super({ ...init, state });
  }
}

/**
 * A chat posting to `app` at `api` the way a `useChat` app that sends its
 * approvals back by itself does; `finished(n)` resolves once `n` streams ended,
 * and `bodies` holds what was posted.
 */
export function approvingChat(
  app: { fetch: (req: Request) => Response | Promise<Response> },
  { api = "http://localhost/mcp-loop?stream=ui", id = `chat-${crypto.randomUUID()}`, headers }: {
    api?: string;
    id?: string;
    headers?: Record<string, string>;
  } = {},
) {
  const bodies: Record<string, unknown>[] = [];
  const waiting: { n: number; resolve: () => void }[] = [];
  let finishes = 0;
  const transport = new DefaultChatTransport({
    api,
    headers,
    body: { mode: "general" },
    fetch: (input, init) => {
      bodies.push(JSON.parse(String(init?.body)));
      return Promise.resolve(app.fetch(new Request(input, init)));
    },
  });
  const chat = new TestChat({
    id,
    transport,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onFinish: () => {
      finishes++;
      for (const w of waiting.filter((w) => w.n <= finishes)) w.resolve();
    },
  });
  const finished = (n: number) =>
    n <= finishes
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiting.push({ n, resolve }));
  return { chat, bodies, finished };
}
