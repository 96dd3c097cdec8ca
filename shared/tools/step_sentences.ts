/**
 * One sentence per step for the reply written without a model. The built-in
 * tools (refinement loops, memory) have their own wording; any other tool's
 * output reads as its `summary` when it has one (a string field a tool may
 * add for people), else as what it returned: a text, a value, or a listing
 * with one line per item. Long texts are cut at a word, never mid-word.
 */
import type { ActionResult } from "../contracts.ts";

type Sentence = (output: Record<string, unknown>) => string | undefined;

/** The sentence (with any listing lines under it) for one step. */
export function stepSentence(result: ActionResult): string {
  if (!result.success) {
    return `${result.tool} failed: ${clipWords(oneLine(result.error ?? "unknown error"), 300)}`;
  }
  const output = result.output;
  if (isRecord(output)) {
    const own = BUILT_IN[result.tool]?.(output);
    if (own) return own;
    if (typeof output.summary === "string" && output.summary.trim()) {
      return clipWords(oneLine(output.summary), 600);
    }
  }
  return describeOutput(result.tool, output);
}

/** Most items a listing shows. */
const MAX_ITEMS = 10;

/** What any tool returned, in words. */
function describeOutput(tool: string, output: unknown): string {
  if (output === null || output === undefined || output === "") {
    return `${tool} ran and returned nothing.`;
  }
  if (typeof output === "string") return `${tool}: ${clipWords(oneLine(output), 600)}`;
  if (Array.isArray(output)) return listing(`${tool} returned`, output, "item");
  if (!isRecord(output)) return `${tool} returned ${valueWords(output)}.`;
  const entries = Object.entries(output).filter(([, value]) => value !== undefined);
  const lists = entries.filter(([, value]) => Array.isArray(value) && value.some(isRecord));
  if (lists.length === 1) {
    const [key, items] = lists[0];
    const rest = entries.filter(([other]) => other !== key);
    const head = rest.length > 0 ? `${tool} returned ${pairs(rest)}, and` : `${tool} returned`;
    return listing(head, items as unknown[], singular(humanKey(key)));
  }
  return entries.length === 0 ? `${tool} returned nothing.` : `${tool} returned ${pairs(entries)}.`;
}

/** "<head> 3 loops:" and a line per item, at most {@link MAX_ITEMS}. */
function listing(head: string, items: readonly unknown[], noun: string): string {
  if (items.length === 0) return `${head} no ${plural(noun, 2)}.`;
  const lines = items.slice(0, MAX_ITEMS).map((item) => `- ${itemWords(item)}`);
  if (items.length > MAX_ITEMS) lines.push(`- and ${items.length - MAX_ITEMS} more`);
  return [`${head} ${items.length} ${plural(noun, items.length)}:`, ...lines].join("\n");
}

/** Fields that name an item, tried in order. */
const LABELS = ["name", "title", "label", "id", "content", "text"];

function itemWords(item: unknown): string {
  if (!isRecord(item)) return valueWords(item);
  const label = LABELS.find((key) =>
    typeof item[key] === "string" || typeof item[key] === "number"
  );
  const rest = Object.entries(item).filter(([key, value]) =>
    key !== label && value !== undefined && !isRecord(value)
  ).slice(0, 5);
  const described = rest.length > 0 ? pairs(rest) : "";
  if (label === undefined) return described || "an empty item";
  return described ? `${valueWords(item[label])}: ${described}` : valueWords(item[label]);
}

function pairs(entries: readonly [string, unknown][]): string {
  return entries.map(([key, value]) => `${humanKey(key)} ${valueWords(value)}`).join(", ");
}

function valueWords(value: unknown): string {
  if (value === null || value === undefined) return "none";
  if (typeof value === "string") return clipWords(oneLine(value), 200);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return "none";
    if (value.some((item) => typeof item === "object" && item !== null)) {
      return `${value.length} ${plural("item", value.length)}`;
    }
    const shown = value.slice(0, 5).map(valueWords).join(", ");
    return value.length > 5 ? `${shown} and ${value.length - 5} more` : shown;
  }
  const size = Object.keys(value).length;
  return `(${size} ${plural("field", size)})`;
}

/** The built-in tools' own sentences. */
const BUILT_IN: Record<string, Sentence> = {
  initialize_refinement_loop: (loop) =>
    `I started a ${
      words(loop.loop_type)
    } refinement loop with id ${loop.id}: it completes at a score of ${loop.threshold} or more, within ${loop.max_iterations} iterations.`,
  decide_loop_next_action: (loop) => {
    const scored = `Loop ${loop.id} scored ${loop.current_score}`;
    if (loop.status === "completed") {
      return `${scored}, reaching its threshold of ${loop.threshold}: it is completed.`;
    }
    if (loop.status === "user_input") {
      return `${scored} (threshold ${loop.threshold}) and now needs your input: it reached its iteration limit or stopped improving.`;
    }
    return `${scored}, below its threshold of ${loop.threshold}: refine it and score it again (iteration ${loop.iteration} of ${loop.max_iterations}).`;
  },
  get_loop_status: (loop) => `Loop ${loopLine(loop)}.`,
  list_active_loops: ({ loops }) => {
    if (!Array.isArray(loops)) return undefined;
    if (loops.length === 0) return "You have no refinement loops yet.";
    return [
      `You have ${loops.length} refinement ${plural("loop", loops.length)}, newest first:`,
      ...loops.filter(isRecord).map((loop) => `- ${loopLine(loop)}`),
    ].join("\n");
  },
  remember: ({ remembered, changed }) => {
    if (typeof remembered !== "string") return "I updated what I remember about you.";
    return changed === false
      ? `I already remembered "${remembered}".`
      : `I will remember "${remembered}" in your later conversations too.`;
  },
  forget: ({ forgotten, everything }) => {
    if (!Array.isArray(forgotten)) return undefined;
    if (everything === true) {
      const count = forgotten.length;
      return count === 0
        ? "I kept nothing about you, so there was nothing to forget. Your conversations are kept until you delete them."
        : `I forgot everything I kept about you (${count} ${
          plural("item", count)
        }). Your conversations are kept until you delete them.`;
    }
    if (forgotten.length === 0) return "Nothing I remember matched that, so I forgot nothing.";
    return `I forgot ${forgotten.map((item) => `"${valueWords(item)}"`).join(" and ")}.`;
  },
  forget_session: ({ deleted }) => {
    if (!isRecord(deleted)) return undefined;
    const count = Number(deleted.messages ?? 0);
    return `I deleted this conversation for good: ${count} ${
      plural("message", count)
    } and what was kept with them.`;
  },
  search_tools: ({ tools }) => {
    if (!Array.isArray(tools)) return undefined;
    const names = tools.filter(isRecord).map((tool) => String(tool.name));
    return names.length === 0
      ? "I found no other tool for that."
      : `I found these tools: ${names.join(", ")}.`;
  },
};

/** "a1b2c3d4 (spec) is being refined, last score 72 (85 needed; scores so far 60, 72), iteration 2 of 5". */
function loopLine(loop: Record<string, unknown>): string {
  const history = Array.isArray(loop.score_history) ? loop.score_history : [];
  const needed = `${loop.threshold} needed` +
    (history.length > 1 ? `; scores so far ${history.join(", ")}` : "");
  const score = loop.current_score === null || loop.current_score === undefined
    ? `not scored yet (${needed})`
    : `last score ${loop.current_score} (${needed})`;
  const status = STATUS_WORDS[String(loop.status)] ?? words(loop.status);
  // A loop completed at its first score has used no iteration: "iteration 0 of 5" read as a slip.
  const iterations = loop.status === "completed"
    ? `${loop.iteration} of ${loop.max_iterations} iterations used`
    : `iteration ${loop.iteration} of ${loop.max_iterations}`;
  return `${loop.id} (${words(loop.loop_type)}) is ${status}, ${score}, ${iterations}`;
}

/** A loop's status in words. */
const STATUS_WORDS: Record<string, string> = {
  initialized: "new",
  refine: "being refined",
  completed: "completed",
  user_input: "waiting for your input",
};

const words = (value: unknown) => String(value).replaceAll("_", " ");
const humanKey = (key: string) =>
  key.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase();
const plural = (noun: string, count: number) =>
  count === 1 ? noun : noun.endsWith("s") ? noun : `${noun}s`;
const singular = (noun: string) => noun.endsWith("s") ? noun.slice(0, -1) : noun;
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** `text` cut at a word boundary to at most about `max` characters, marked with " …". */
export function clipWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max + 1);
  // A text without spaces (a URL, an id) is cut where it must be.
  const cut = /\s/.test(head) ? head.replace(/\s+\S*$/, "") : text.slice(0, max);
  return `${cut.replace(/[\s,;:]+$/, "")} …`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
