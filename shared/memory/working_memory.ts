/**
 * Working memory: per caller, a small JSON document the planner reads every
 * turn, updated with merge semantics (as Mastra's schema-based working
 * memory): objects are merged field by field, arrays and values are replaced,
 * and `null` removes a field. Its shape is a JSON Schema — by default a list
 * of facts and a list of preferences — configurable with
 * the option `workingMemorySchema`.
 */
import { z } from "zod";
import { contentWords, tokenize } from "../text/words.ts";
import { AppError } from "../errors.ts";
import type { Caller } from "../ports.ts";
import type { WorkingMemoryStore } from "../store/working_memory_port.ts";

/** A working memory document. */
export type MemoryDocument = Record<string, unknown>;

/** Longest document, as JSON text: it is in every planner prompt. */
export const MAX_MEMORY_CHARS = 8_000;

const ITEMS = { type: "string", minLength: 1, maxLength: 500 };

/** The default shape: facts and preferences, each a list of short sentences. */
export const DEFAULT_MEMORY_JSON_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: "object",
  properties: {
    facts: {
      type: "array",
      items: ITEMS,
      maxItems: 50,
      description: "Things the user asked to be remembered, one short sentence each",
    },
    preferences: {
      type: "array",
      items: ITEMS,
      maxItems: 50,
      description: "How the user likes things done, one short sentence each",
    },
  },
  additionalProperties: false,
});

/** A working memory's shape: the document's schema and the schema of an update to it. */
export interface MemoryShape {
  /** The JSON Schema of a whole document. */
  json: Record<string, unknown>;
  /** Checks a whole document. */
  document: z.ZodType;
  /** Checks an update: every field optional at every depth, and null allowed (it removes). */
  patch: z.ZodType;
  /** Whether `fact` can be added: the document has a `facts` list of strings. */
  hasFacts: boolean;
}

/** The shape of `json` (default: facts and preferences). */
export function memoryShape(
  json: Record<string, unknown> = DEFAULT_MEMORY_JSON_SCHEMA,
): MemoryShape {
  const facts = (json.properties as Record<string, Record<string, unknown>> | undefined)?.facts;
  return {
    json,
    document: z.fromJSONSchema(json as Parameters<typeof z.fromJSONSchema>[0]),
    patch: z.fromJSONSchema(partial(json) as Parameters<typeof z.fromJSONSchema>[0]),
    hasFacts: facts?.type === "array" &&
      (facts.items as Record<string, unknown> | undefined)?.type === "string",
  };
}

/** `schema` with nothing required at any depth and null allowed for every property. */
function partial(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const { required: _required, properties, ...rest } = schema as Record<string, unknown>;
  if (typeof properties !== "object" || properties === null) return rest;
  const loose = Object.fromEntries(
    Object.entries(properties).map(([name, inner]) => [
      name,
      { anyOf: [partial(inner), { type: "null" }] },
    ]),
  );
  return { ...rest, properties: loose };
}

/** `patch` merged into `document`: objects merged, arrays and values replaced, null removes. */
export function mergeMemory(document: MemoryDocument, patch: MemoryDocument): MemoryDocument {
  const merged: MemoryDocument = { ...document };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (isObject(value) && isObject(merged[key])) {
      merged[key] = mergeMemory(merged[key] as MemoryDocument, value);
    } else if (value !== undefined) merged[key] = value;
  }
  return merged;
}

/** `document` with `fact` added to its facts (once: a fact already there, in any case, is kept). */
export function addFact(document: MemoryDocument, fact: string): MemoryDocument {
  const text = fact.trim();
  const facts = Array.isArray(document.facts) ? document.facts : [];
  if (facts.some((item) => typeof item === "string" && same(item, text))) return document;
  return { ...document, facts: [...facts, text] };
}

/**
 * `document` without what `what` names: every string in a list, and every
 * field holding a string, that contains all of its content words ("my
 * favourite colour" forgets "My favourite colour is teal"), unless it names
 * someone else's ("my birthday" leaves "my mom's birthday is May 9"); and the fields at
 * `keys` (dotted paths). When nothing holds them all and `what` asks for a
 * thing's number ("my locker number"), the one item of the thing holding a
 * number ("my locker is 212"). Returns what was removed, as text.
 */
export function forgetFromMemory(
  document: MemoryDocument,
  { what, keys = [] }: { what?: string; keys?: readonly string[] },
): { document: MemoryDocument; removed: string[] } {
  const removed: string[] = [];
  let result = structuredClone(document);
  for (const key of keys) {
    const path = key.split(".").filter(Boolean);
    const parent = path.slice(0, -1).reduce<unknown>(
      (node, name) => isObject(node) ? node[name] : undefined,
      result,
    );
    const last = path.at(-1);
    if (last !== undefined && isObject(parent) && last in parent) {
      removed.push(key);
      delete parent[last];
    }
  }
  const words = what ? contentWords(what) : [];
  if (what === undefined || words.length === 0) return { document: result, removed };
  const theirs = othersOwn(what);
  result = prune(
    result,
    (text) => holdsAll(text, words) && !theirs(text),
    removed,
  ) as MemoryDocument;
  if (removed.length > 0 || !NUMBER_WORDS.has(words.at(-1)!) || words.length < 2) {
    return { document: result, removed };
  }
  // "forget my locker number" for "my locker is 212": the one item of the thing that holds a number.
  const numbered = (text: string) =>
    holdsAll(text, words.slice(0, -1)) && /\d/.test(text) && !theirs(text);
  const found: string[] = [];
  const pruned = prune(structuredClone(result), numbered, found) as MemoryDocument;
  if (found.length !== 1) return { document: result, removed };
  return { document: pruned, removed: [...removed, ...found] };
}

/** Words that ask for a thing's number rather than name a thing: "my locker number", "the door code". */
export const NUMBER_WORDS: ReadonlySet<string> = new Set(["number", "code", "pin", "id", "no"]);

/** Whether the text holds every one of the content words. */
function holdsAll(text: string, words: readonly string[]): boolean {
  const own = new Set(contentWords(text));
  return words.every((word) => own.has(word));
}

/**
 * For "forget my birthday": whether an item names someone else's ("my mom's
 * birthday is May 9", "Ana's birthday"), which "my birthday" does not mean.
 */
export function othersOwn(what: string): (text: string) => boolean {
  const said = tokenize(what);
  const mine = said.flatMap((word, i) => said[i - 1] === "my" ? [word] : []);
  return (text) => {
    const words = tokenize(text);
    return mine.some((word) =>
      words.some((other, i) =>
        other === word && words[i - 1] === "s" && !said.includes(words[i - 2])
      )
    );
  };
}

/** Removes the strings `holds` picks (items of lists, fields' values), noting each in `removed`. */
function prune(
  value: unknown,
  holds: (text: string) => boolean,
  removed: string[],
  key = "",
): unknown {
  if (Array.isArray(value)) {
    return value.filter((item) => {
      if (typeof item !== "string" || !holds(item)) return true;
      removed.push(item);
      return false;
    }).map((item) => prune(item, holds, removed));
  }
  if (!isObject(value)) return value;
  const kept: MemoryDocument = {};
  for (const [name, inner] of Object.entries(value)) {
    const path = key ? `${key}.${name}` : name;
    if (typeof inner === "string" && holds(`${name.replace(/[_.-]+/g, " ")} ${inner}`)) {
      removed.push(`${path}: ${inner}`);
    } else kept[name] = prune(inner, holds, removed, path);
  }
  return kept;
}

/** The document's statements as text, for recall: list items, and `field: value` for strings. */
export function memoryStatements(document: unknown, key = ""): string[] {
  if (typeof document === "string") return key ? [`${key}: ${document}`] : [document];
  if (typeof document === "number" || typeof document === "boolean") {
    return key ? [`${key}: ${document}`] : [];
  }
  if (Array.isArray(document)) return document.flatMap((item) => memoryStatements(item));
  if (!isObject(document)) return [];
  return Object.entries(document).flatMap(([name, inner]) =>
    memoryStatements(inner, Array.isArray(inner) ? "" : name.replace(/[_-]+/g, " "))
  );
}

/** Checks a whole document against the shape and the size limit; throws what is wrong. */
export function checkMemory(shape: MemoryShape, document: MemoryDocument): MemoryDocument {
  const parsed = shape.document.safeParse(document);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new AppError(
      "VALIDATION_FAILED",
      `The working memory would not fit its schema: ${
        issue.path.join(".") || "(document)"
      }: ${issue.message}; forget something first, or change less`,
    );
  }
  const chars = JSON.stringify(document).length;
  if (chars > MAX_MEMORY_CHARS) {
    throw new AppError(
      "VALIDATION_FAILED",
      `The working memory would be ${chars} characters, over its limit of ${MAX_MEMORY_CHARS}; forget something first`,
    );
  }
  return document;
}

/** Most attempts of an update that keeps meeting concurrent writes. */
const MAX_ATTEMPTS = 5;

/**
 * Applies `change` to the caller's working memory and stores it, reading again
 * and reapplying when someone else wrote in between. Returns the new document
 * and what `change` reported.
 */
export async function updateMemory<R>(
  { store, caller, shape }: { store: WorkingMemoryStore; caller: Caller; shape: MemoryShape },
  change: (document: MemoryDocument) => { document: MemoryDocument; report: R },
): Promise<{ document: MemoryDocument; report: R; changed: boolean }> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const stored = await store.getMemory(caller);
    const { document, report } = change(stored.document);
    if (JSON.stringify(document) === JSON.stringify(stored.document)) {
      return { document, report, changed: false };
    }
    checkMemory(shape, document);
    if (await store.putMemory(caller, document, stored.version)) {
      return { document, report, changed: true };
    }
  }
  throw new AppError(
    "DB_UNAVAILABLE",
    `The working memory kept changing while it was being updated (${MAX_ATTEMPTS} attempts); try again`,
  );
}

function same(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

function isObject(value: unknown): value is MemoryDocument {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
