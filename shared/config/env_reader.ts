/**
 * Typed reads of environment variables (from a plain object: only config.ts
 * touches Deno.env) and checks of the typed options given in code, collecting
 * every problem so start-up reports them all.
 */
import { AppError } from "../errors.ts";

/** Environment variables as a plain object. */
export type Env = Record<string, string | undefined>;

/** Reads typed values and collects every problem before failing. */
export class EnvReader {
  readonly #env: Env;
  readonly #problems: string[] = [];

  constructor(env: Env) {
    this.#env = env;
  }

  /** The trimmed value, or undefined when unset or blank. */
  string(name: string): string | undefined {
    const value = this.#env[name]?.trim();
    return value ? value : undefined;
  }

  /** An integer in [min, max]. */
  int(name: string, range: { fallback: number; min: number; max: number }): number {
    return this.#numeric(name, range, "an integer", (raw) => /^-?\d+$/.test(raw));
  }

  /** A finite number in [min, max]. */
  number(name: string, range: { fallback: number; min: number; max: number }): number {
    return this.#numeric(name, range, "a number", (raw) => Number.isFinite(Number(raw)));
  }

  #numeric(
    name: string,
    { fallback, min, max }: { fallback: number; min: number; max: number },
    kind: string,
    wellFormed: (raw: string) => boolean,
  ): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!wellFormed(raw) || value < min || value > max) {
      this.#problems.push(`${name} must be ${kind} from ${min} to ${max}; got "${raw}"`);
      return fallback;
    }
    return value;
  }

  bool(name: string, { fallback }: { fallback: boolean }): boolean {
    const raw = this.string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (["1", "true", "yes", "on"].includes(raw)) return true;
    if (["0", "false", "no", "off"].includes(raw)) return false;
    this.#problems.push(`${name} must be true or false; got "${raw}"`);
    return fallback;
  }

  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if ((values as readonly string[]).includes(raw)) return raw as T;
    this.#problems.push(`${name} must be one of ${values.join(", ")}; got "${raw}"`);
    return fallback;
  }

  /** An option given in code (`name` is its path): within [min, max], else a problem. */
  option(
    name: string,
    value: number | undefined,
    { fallback, min, max, integer = false }: {
      fallback: number;
      min: number;
      max: number;
      integer?: boolean;
    },
  ): number {
    if (value === undefined) return fallback;
    if (
      !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))
    ) {
      this.#problems.push(
        `option ${name} must be ${
          integer ? "an integer" : "a number"
        } from ${min} to ${max}; got ${value}`,
      );
      return fallback;
    }
    return value;
  }

  /** Records a problem found by a caller's own check. */
  problem(message: string): void {
    this.#problems.push(message);
  }

  /** Throws CONFIG_INVALID listing every problem, if there were any. */
  throwIfInvalid(): void {
    if (this.#problems.length === 0) return;
    throw new AppError(
      "CONFIG_INVALID",
      `Invalid configuration:\n- ${this.#problems.join("\n- ")}`,
      { details: { problems: [...this.#problems] } },
    );
  }
}
