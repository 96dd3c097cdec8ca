/**
 * Calling the project's SQL functions through Supabase's API (PostgREST RPC)
 * as the caller: a signed-in user with their JWT, so row level security
 * applies at the API; anyone else through the project's secret (service
 * role) key, when one is configured.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { AppError } from "../../errors.ts";
import type { Caller } from "../../ports.ts";
import { createCallerClient } from "./caller_client.ts";

/** Where the project is and which keys to use. */
export interface SupabaseRpcOptions {
  url: string;
  /** The anon/publishable key: every request's `apikey`. */
  publishableKey: string;
  /** The service role/secret key, for callers without a user JWT. */
  secretKey?: string;
  /** Replaces `fetch` (tests). */
  fetch?: typeof fetch;
}

/** RPC calls as the caller. */
export class SupabaseRpc {
  readonly #options: SupabaseRpcOptions;
  #serviceClient?: SupabaseClient;

  constructor(options: SupabaseRpcOptions) {
    this.#options = options;
  }

  /** Calls `fn` with `args` as `caller`; a failure is DB_UNAVAILABLE saying what was attempted. */
  async call<T>(
    caller: Caller,
    fn: string,
    args: Record<string, unknown>,
    attempt: string,
  ): Promise<T> {
    const { data, error } = await this.client(caller).rpc(fn, args);
    if (error) throw rpcError(attempt, error);
    return data as T;
  }

  /** The client acting as `caller`. */
  client(caller: Caller): SupabaseClient {
    const { url, secretKey, fetch } = this.#options;
    if (caller.userId && caller.token) return createCallerClient(this.#options, caller);
    if (!secretKey) {
      throw new AppError(
        "UNAUTHORIZED",
        "This server stores conversations through Supabase's API and needs a signed-in user's JWT",
      );
    }
    this.#serviceClient ??= createClient(url, secretKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      global: { fetch },
    });
    return this.#serviceClient;
  }
}

function rpcError(attempt: string, error: { message: string; code?: string }): AppError {
  return new AppError(
    "DB_UNAVAILABLE",
    `Could not ${attempt} through Supabase: ${error.message}${
      error.code ? ` (${error.code})` : ""
    }`,
  );
}
