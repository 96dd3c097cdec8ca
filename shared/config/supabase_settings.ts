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
 * The project's API keys, the new ones first. Supabase keeps setting the
 * legacy `SUPABASE_ANON_KEY` and `SUPABASE_SERVICE_ROLE_KEY` after a project
 * disables them, and then they answer "Legacy API keys are disabled"
 * (supabase/supabase#37648); the new key sets work whether or not the legacy
 * keys still do.
 */
export interface ProjectKeys {
  /** `SUPABASE_PUBLISHABLE_KEYS`' default key, else `SUPABASE_ANON_KEY`. */
  publishable?: string;
  /** `SUPABASE_SECRET_KEYS`' default key, else `SUPABASE_SERVICE_ROLE_KEY`. */
  secret?: string;
  /** Every `sb_secret_…` key of the project: a caller sending one acts as `service_role`. */
  secretKeys: string[];
}

/** Reads the project's keys once; a key set that is not one is a problem. */
export function readProjectKeys(reader: EnvReader): ProjectKeys {
  const keySet = (name: string) => {
    const raw = reader.string(name);
    if (!raw) return undefined;
    const keys = parseKeySet(raw);
    if (!keys || Object.values(keys).some((key) => typeof key !== "string")) {
      reader.problem(`${name} must be a JSON object of named keys, like {"default":"sb_..."}`);
      return undefined;
    }
    return keys;
  };
  const publishableKeys = keySet("SUPABASE_PUBLISHABLE_KEYS");
  const secretKeys = keySet("SUPABASE_SECRET_KEYS");
  const serviceRole = reader.string("SUPABASE_SERVICE_ROLE_KEY");
  return {
    publishable: defaultKey(publishableKeys) ?? reader.string("SUPABASE_ANON_KEY"),
    secret: defaultKey(secretKeys) ?? serviceRole,
    secretKeys: [...Object.values(secretKeys ?? {}), ...(serviceRole ? [serviceRole] : [])]
      .filter((key) => key.startsWith("sb_secret_")),
  };
}

/** The key named "default" of a key set, else its first. */
function defaultKey(keys: Record<string, string> | undefined): string | undefined {
  if (!keys) return undefined;
  return keys.default ?? Object.values(keys)[0];
}

/**
 * The project's API for tools that act as the caller: `SUPABASE_URL` and the
 * publishable key (see {@link readProjectKeys}), both set automatically on
 * Supabase. Undefined when either is missing.
 */
export function readSupabaseApi(
  reader: EnvReader,
  keys: ProjectKeys,
): { url: string; publishableKey: string } | undefined {
  const url = reader.string("SUPABASE_URL");
  if (!url || !isHttpUrl(url) || !keys.publishable) return undefined;
  return { url: url.replace(/\/+$/, ""), publishableKey: keys.publishable };
}
