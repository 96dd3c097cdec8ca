/**
 * Progress events of one loop run, delivered through `onEvent` so the HTTP
 * layer can stream them without the runner knowing about HTTP. The event
 * shapes are part of the wire contract (`shared/contracts.ts`).
 */
import { CONTEXT_PREVIEW_CHARS, type LoopEvent } from "../contracts.ts";
import { describeError } from "../errors.ts";
import type { Logger, StoredMessage } from "../ports.ts";
import type { LoadedContext } from "./context_stage.ts";

/**
 * Receives progress events, with their number in a persisted run's event log
 * (the SSE `id`); must not throw (a throwing listener is ignored).
 */
export type LoopEventListener = (event: LoopEvent, id?: number) => void;

/** The `context` event: counts, and which messages were recalled (ids and previews, not copies). */
export function contextEvent(
  loaded: Pick<LoadedContext, "recentMessages" | "semanticMatches">,
  embeddingModel: string,
): LoopEvent {
  const brief = ({ id, role, content, createdAt }: StoredMessage) => ({
    id,
    role,
    preview: previewOf(content),
    createdAt,
  });
  return {
    type: "context",
    recentMessages: loaded.recentMessages.length,
    semanticMatches: loaded.semanticMatches.length,
    embeddingModel,
    messages: {
      recent: loaded.recentMessages.map(brief),
      matches: loaded.semanticMatches.map((match) => ({
        ...brief(match),
        foundBy: match.foundBy,
        ...(match.similarity === undefined
          ? {}
          : { similarity: Math.round(match.similarity * 1000) / 1000 }),
      })),
    },
  };
}

/** `listener`, made safe: a throw is logged and the event dropped. */
export function safeListener(
  listener: LoopEventListener | undefined,
  logger: Logger,
): LoopEventListener {
  if (!listener) return () => {};
  return (event: LoopEvent, id?: number) => {
    try {
      listener(event, id);
    } catch (error) {
      logger.warn("onEvent listener threw; event dropped", { error: describeError(error) });
    }
  };
}

/** The start of `text`, cut at a word boundary when one is near. */
export function previewOf(text: string, max = CONTEXT_PREVIEW_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}
