/**
 * A supabase-js client that acts as the caller: a signed-in user's requests
 * carry their own access token, so row level security applies to them; every
 * other caller gets the project's anon (publishable) key and what RLS allows
 * `anon`. It never carries a service or secret key.
 *
 * Tools get it as `supabase` only where the application asks for it
 * (`supabaseClient` in functions/mcp-loop/tools.ts): importing this module
 * puts supabase-js and its packages in the deployed bundle (docs/deploy.md#bundle-size).
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import type { Caller } from "../../ports.ts";

/** Where the project's API is, and its public key. */
export interface SupabaseApiSettings {
  url: string;
  /** The anon / publishable key (public by design: RLS is what protects the data). */
  publishableKey: string;
  /** Replaces `fetch` (tests). */
  fetch?: typeof fetch;
}

/** Builds the client tools get as `supabase` for one caller. */
export type SupabaseClientFactory = (
  settings: SupabaseApiSettings,
  caller: Caller,
) => SupabaseClient;

const AUTH = { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false };

/** A client for one caller (cheap to build; build one per call). */
export const createCallerClient: SupabaseClientFactory = (settings, caller) => {
  const { url, publishableKey, fetch } = settings;
  const headers: Record<string, string> = caller.userId && caller.token
    ? { Authorization: `Bearer ${caller.token}` }
    : {};
  return createClient(url, publishableKey, { auth: AUTH, global: { headers, fetch } });
};
