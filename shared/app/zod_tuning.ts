/**
 * Zod tuned for the processes this project owns: the function and the stdio
 * server import this first, before any schema exists. Both changes are about
 * garbage that V8's young-generation collector could not free, which under
 * MCP load made its collections long and frequent (docs/benchmarks.md#mcp).
 *
 * 1. No cycle memoizer. Zod 4.5+ wraps every schema that can recurse (the MCP
 *    SDK's JSON value schemas) so that it can parse cyclic objects, allocating
 *    WeakMaps keyed by the input on every parse; those survived young-generation
 *    collections and were promoted with what they reach. Everything parsed here
 *    comes from JSON, which has no cycles; a cyclic object given to a schema
 *    now overflows the stack instead of being parsed.
 * 2. A failed `safeParse` pins nothing. Zod 4.6 returns a failure as an object
 *    literal with a lazy `get error()`/`set error()`; V8 allocates the accessor
 *    pair of such a literal in the old generation, so its closures — holding
 *    the issues and through them the input — live until the next full
 *    collection. The MCP SDK tells messages apart with safeParses that fail
 *    (`isJSONRPCResultResponse` of a request, and so on), several per request,
 *    so every request's message was promoted. Here a failure is an instance of
 *    a class whose `error` getter sits on the prototype: the same lazily built
 *    `ZodError`, without a per-object accessor pair. Zod's own module-level
 *    `z.safeParse(schema, value)` is left as it is.
 */
import { z } from "zod";

/**
 * Where the function is deployed the tuning is left out: under the edge
 * runtime's Deno, on the deployed entry and a realistic mix of requests, it
 * made no difference beyond noise (`deno task bench edge`, docs/benchmarks.md#edge),
 * so the deployed function runs Zod as published (a cyclic input is parsed,
 * not a stack overflow). It stays for `deno task start` and `mcp:stdio`,
 * where thousands of MCP calls a second showed what it saves.
 */
const TUNED = !("EdgeRuntime" in globalThis);

if (TUNED) {
  z.config({
    memoizer: {
      attach() {},
      guard() {},
      alloc: (_schema, _payload, empty) => empty,
    },
  });
}

type Context = z.core.ParseContext<z.core.$ZodIssue>;

/** A failed `safeParse`: `error` is built on first read, as Zod builds it. */
class SafeParseFailure {
  readonly success = false;
  #error: z.ZodError | undefined;
  #issues: z.core.$ZodRawIssue[] | undefined;
  #ctx: Context | undefined;

  constructor(issues: z.core.$ZodRawIssue[], ctx: Context) {
    this.#issues = issues;
    this.#ctx = ctx;
  }

  get error(): z.ZodError {
    if (!this.#error) {
      const config = z.core.config();
      const ctx = this.#ctx;
      this.#error = new z.ZodRealError(
        this.#issues!.map((issue) => z.core.util.finalizeIssue(issue, ctx, config)),
      );
      this.#release();
    }
    return this.#error;
  }

  set error(error: z.ZodError) {
    this.#error = error;
    this.#release();
  }

  /** The raw issues hold the input: once the error exists they are not needed. */
  #release(): void {
    this.#issues = undefined;
    this.#ctx = undefined;
  }
}

/** Zod's `schema.safeParse(data, params)`, returning a {@link SafeParseFailure} on failure. */
function safeParse(this: z.ZodType, data: unknown, params?: Context) {
  const ctx = params ? { ...params, async: false } : { async: false };
  const result = this._zod.run({ value: data, issues: [] }, ctx);
  if (result instanceof Promise) throw new z.core.$ZodAsyncError();
  return result.issues.length
    ? new SafeParseFailure(result.issues, ctx)
    : { success: true, data: result.value };
}

/*
 * Zod installs a schema class's methods on its prototype when the class's
 * first instance is built, so the replacement goes in after that: from Zod's
 * hook for every newly built schema (the one `zod/compile` uses), once per
 * prototype. Like Zod's own members it is bound to the instance on first
 * read, so a detached `const check = schema.safeParse` keeps working.
 */
const replaced = new WeakSet<object>();

function replaceSafeParse(schema: object): void {
  let owner = Object.getPrototypeOf(schema);
  while (owner && !Object.hasOwn(owner, "safeParse")) owner = Object.getPrototypeOf(owner);
  if (!owner || replaced.has(owner)) return;
  replaced.add(owner);
  Object.defineProperty(owner, "safeParse", {
    configurable: true,
    get(this: object | undefined) {
      return this == null ? safeParse : own(this, safeParse.bind(this as z.ZodType));
    },
    set(this: object, value: unknown) {
      own(this, value);
    },
  });
}

/** Makes `value` the instance's own `safeParse`, as Zod's members do on first read or assignment. */
function own(target: object, value: unknown): unknown {
  Object.defineProperty(target, "safeParse", {
    configurable: true,
    writable: true,
    enumerable: true,
    value,
  });
  return value;
}

if (TUNED) {
  const hooks = z.core.globalConfig as { postProcessor?: (schema: object) => void };
  const previous = hooks.postProcessor;
  hooks.postProcessor = (schema) => {
    replaceSafeParse(schema);
    previous?.(schema);
  };
}
