/**
 * A run's base names the messages its planner recalled instead of copying
 * them: in the stored base each of `context.recentMessages` and
 * `context.semanticMatches` keeps everything but its text (id, role,
 * session, time, and a match's rank), and the text stays in
 * `chat_messages`, where it is stored once, for as long as the messages are
 * kept. A run that goes on reads the text again, for its caller, by id; a
 * message deleted meanwhile is left out (erasure wins). A base an earlier
 * release stored, its messages with their text, is used as it is.
 */
import type { TurnBase } from "../loop/turn_state.ts";
import type { Caller, ConversationStore } from "../ports.ts";
import type { RunBase } from "./run_store.ts";

/** The lists of the context whose messages a stored base names by id. */
const RECALLED = ["recentMessages", "semanticMatches"] as const;

/** A recalled message as the stored base names it: the message without its text. */
type Reference = Record<string, unknown> & { id: string };

/** The base as a run stores it: its recalled messages by reference (see the module doc). */
export function recalledByReference(base: TurnBase): RunBase {
  return mapRecalled(base, (item) => {
    if (!isMessage(item)) return [item];
    const { content: _text, ...reference } = item;
    return [reference];
  });
}

/**
 * The base a stored run goes on from: its recalled messages with their text
 * read from `store` for `caller`, those no longer there left out; the base
 * itself when it names none (it holds their text, or recalled nothing).
 */
export async function withRecalledText(
  base: RunBase,
  { store, caller }: { store: Pick<ConversationStore, "messagesByIds">; caller: Caller },
): Promise<TurnBase> {
  const ids = RECALLED.flatMap((key) => references(base.context[key]).map((item) => item.id));
  if (ids.length === 0) return base;
  const texts = new Map(
    (await store.messagesByIds(caller, [...new Set(ids)])).map((m) => [m.id, m.content]),
  );
  return mapRecalled(base, (item) => {
    if (!isReference(item)) return [item];
    const content = texts.get(item.id);
    return content === undefined ? [] : [{ ...item, content }];
  });
}

/** `base` with each item of its recalled lists replaced by what `each` returns for it. */
function mapRecalled<B extends TurnBase | RunBase>(base: B, each: (item: unknown) => unknown[]): B {
  const context = { ...base.context };
  for (const key of RECALLED) {
    const list = context[key];
    if (Array.isArray(list)) context[key] = list.flatMap(each);
  }
  return { ...base, context };
}

function references(list: unknown): Reference[] {
  return Array.isArray(list) ? list.filter(isReference) : [];
}

/** A recalled message, with or without its text. */
function isRecalled(item: unknown): item is Reference {
  return typeof item === "object" && item !== null && typeof (item as Reference).id === "string";
}

/** A recalled message with its text (as the running turn holds it, or an earlier release stored it). */
function isMessage(item: unknown): item is Reference & { content: unknown } {
  return isRecalled(item) && "content" in item;
}

/** A recalled message named without its text. */
function isReference(item: unknown): item is Reference {
  return isRecalled(item) && !("content" in item);
}
