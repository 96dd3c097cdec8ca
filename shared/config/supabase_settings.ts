/**
 * Facts about Supabase settings shared by several configuration sections:
 * whether any are present, and how a Supabase key set is read.
 */
import type { EnvReader } from "./env_reader.ts";

/**
 * Supabase settings are present (the function is deployed, or configured like
 * it): then anonymous calls and any-origin CORS are off unless turned on.
 */
export function hasSupabaseSettings(reader: EnvReader): boolean {
  return ["SUPABASE_URL", "SUPABASE_DB_URL", "SUPABASE_JWT_SECRET", "SUPABASE_JWKS"]
    .some((name) => Boolean(reader.string(name)));
}

/** The "default" key of a Supabase key set (`{"default":"sb_..."}`). */
export function readKeySet(reader: EnvReader, name: string): string | undefined {
  const raw = reader.string(name);
  if (!raw) return undefined;
  const keys = parseKeySet(raw);
  if (keys) return keys.default ?? Object.values(keys)[0];
  reader.problem(`${name} must be a JSON object of named keys, like {"default":"sb_..."}`);
  return undefined;
}

/** A Supabase key set (`{"default":"sb_..."}`), or undefined when absent or not one. */
export function parseKeySet(raw: string | undefined): Record<string, string> | undefined {
  if (!raw) return undefined;
  try {
    const keys = JSON.parse(raw);
    return typeof keys === "object" && keys !== null && !Array.isArray(keys) ? keys : undefined;
  } catch {
    return undefined;
  }
}

/** Is `value` an absolute http(s) URL? */
export function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value) && URL.canParse(value);
}

/**
 * Deployed: Supabase settings are present and they are not the local stack's
 * (`supabase functions serve` sets SUPABASE_URL to it). Defaults that are
 * convenient locally (CORS `*`, the playground) are off when deployed.
 */
export function isDeployed(reader: EnvReader): boolean {
  const local = /^https?:\/\/(kong|localhost|127\.0\.0\.1|host\.docker\.internal)(:\d+)?\/?$/
    .test(reader.string("SUPABASE_URL") ?? "");
  return hasSupabaseSettings(reader) && !local;
}

/**
 * The project's API for tools that act as the caller: `SUPABASE_URL` and the
 * anon key (`SUPABASE_ANON_KEY`, or the default of `SUPABASE_PUBLISHABLE_KEYS`),
 * both set automatically on Supabase. Undefined when either is missing.
 */
export function readSupabaseApi(
  reader: EnvReader,
): { url: string; publishableKey: string } | undefined {
  const url = reader.string("SUPABASE_URL");
  const raw = reader.string("SUPABASE_PUBLISHABLE_KEYS");
  const keys = parseKeySet(raw);
  const publishableKey = reader.string("SUPABASE_ANON_KEY") ??
    (keys ? keys.default ?? Object.values(keys)[0] : undefined);
  if (!url || !isHttpUrl(url) || !publishableKey) return undefined;
  return { url: url.replace(/\/+$/, ""), publishableKey };
}
