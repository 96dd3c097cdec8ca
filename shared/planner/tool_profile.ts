/**
 * What the offline planner reads off a tool: the verbs that ask for it (its
 * name's first word, and its description's first word when that is a verb:
 * `decide_loop_next_action` is "decide" and "record"), the words naming what
 * it acts on (the rest of its name, and the thing of each required
 * `<thing>_id`-style arg), and the words saying what it is about (its name
 * and the lead of its description, examples in brackets left out).
 */
import { contentWords, stem, tokenize } from "../text/words.ts";
import type { PlannerTool } from "../ports.ts";
import { isKnownVerb, sameThing } from "./action_words.ts";

/** The words a tool is asked for by (all stemmed). */
export interface ToolProfile {
  /** The verb its name opens with. */
  nameVerb: string;
  /** Every verb that asks for it. */
  verbs: string[];
  /** What it acts on: its name after the verb and its required args' things, with same-thing words. */
  objects: Set<string>;
  /** Its name's words (its verbs left out), which say most about it. */
  nameWords: Set<string>;
  /** The content words of its description's lead (its verbs left out). */
  leadWords: Set<string>;
  /** The content words of its whole description. */
  descriptionWords: Set<string>;
  /** The content words of its args' names ("limit", "max minutes"): what a request may set. */
  argWords: Set<string>;
  /** Its description's lead, as written: "Get the current date and time in a place". */
  lead: string;
}

/** Arg words that say nothing about what a tool acts on. */
const GENERIC_ARGS = new Set(["type", "name", "value", "text", "query", "id", "current", "new"]);

const profiles = new WeakMap<PlannerTool, ToolProfile>();

/** The tool's profile, computed once per tool object (the registry keeps them while it is unchanged). */
export function toolProfile(tool: PlannerTool): ToolProfile {
  let profile = profiles.get(tool);
  if (!profile) {
    profile = buildProfile(tool);
    profiles.set(tool, profile);
  }
  return profile;
}

function buildProfile(tool: PlannerTool): ToolProfile {
  // A remote tool is `<server>__<name>`, described as "[server] …".
  const name = tool.name.split("__").at(-1)!;
  const nameTokens = tokenize(name.replace(/[_.-]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2"));
  const nameVerb = stem(nameTokens[0] ?? name);
  const lead = descriptionLead(tool.description);
  const firstWord = tokenize(lead)[0];
  const verbs = [nameVerb];
  if (firstWord && isKnownVerb(firstWord) && stem(firstWord) !== nameVerb) {
    verbs.push(stem(firstWord));
  }
  const notVerb = (word: string) => !verbs.includes(word);
  const nameWords = new Set(contentWords(nameTokens.join(" ")).filter(notVerb));
  const objects = new Set<string>();
  const own = nameTokens.length > 1 ? contentWords(nameTokens.slice(1).join(" ")) : [];
  for (const word of [...own, ...requiredThings(tool)]) {
    for (const same of sameThing(word)) objects.add(same);
  }
  const leadWords = new Set(contentWords(lead).filter(notVerb));
  const descriptionWords = new Set(contentWords(tool.description));
  const argWords = new Set(
    Object.keys(argProperties(tool)).flatMap((arg) =>
      contentWords(arg.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " "))
    ),
  );
  return { nameVerb, verbs, objects, nameWords, leadWords, descriptionWords, argWords, lead };
}

/**
 * The lead of a description: up to its first full stop, colon or semicolon,
 * without bracketed asides or a remote server's "[name]" tag.
 */
export function descriptionLead(description: string): string {
  const text = description.replace(/^\s*\[[^\]]*\]\s*/, "").replace(/\s*\([^)]*\)/g, "")
    .replace(/\b(e\.g|i\.e|etc)\./gi, "$1");
  const lead = text.split(/(?<=\w)[.:;](?:\s|$)|\n/)[0] ?? text;
  return lead.replace(/\s+/g, " ").trim();
}

/** The tool's args schema's properties. */
export function argProperties(tool: PlannerTool): Record<string, unknown> {
  const properties = tool.argsSchema?.properties;
  return typeof properties === "object" && properties !== null
    ? properties as Record<string, unknown>
    : {};
}

/** The things a tool's required args name: `loop_id` → "loop", `current_score` → "score". */
function requiredThings(tool: PlannerTool): string[] {
  const required = (tool.argsSchema?.required ?? []) as string[];
  return required.flatMap((arg) => {
    const words = tokenize(arg.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " "));
    const thing = words.at(-1) === "id" ? words.at(-2) : words.at(-1);
    return thing && !GENERIC_ARGS.has(thing) ? contentWords(thing) : [];
  });
}
