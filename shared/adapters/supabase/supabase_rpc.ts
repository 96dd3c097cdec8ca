/**
 * Calling the project's SQL functions through Supabase's API (PostgREST RPC)
 * as the caller: a signed-in user with their JWT, so row level security
 * applies at the API; anyone else through the project's secret (service
 * role) key, when one is configured.
 *
 * Plain `fetch`, as supabase-js's `rpc` sends it (postgrest-js 2.x,
 * `PostgrestClient.rpc` and `PostgrestBuilder.then`): `POST
 * {url}/rest/v1/rpc/{fn}` with the arguments as a JSON object, `apikey`,
 * `Authorization` and `Content-Profile: public` headers, no retry
 * (postgrest-js retries only GET and HEAD).
 * An answer is JSON, or empty for a function returning void; a refusal is
 * PostgREST's error object `{code, message, details, hint}`
 * (https://docs.postgrest.org/en/v12/references/errors.html). supabase-js
 * itself stays out of the deployed function (docs/deploy.md#bundle-size).
 */
import { AppError } from "../../errors.ts";
import type { Caller } from "../../ports.ts";

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
    const { url, fetch: send = fetch } = this.#options;
    // supabase-js's default schema, named as postgrest-js names it for a POST.
    const headers = {
      ...this.#headers(caller),
      "content-type": "application/json",
      "content-profile": "public",
    };
    let response: Response;
    let text: string;
    try {
      response = await send(`${url.replace(/\/+$/, "")}/rest/v1/rpc/${encodeURIComponent(fn)}`, {
        method: "POST",
        headers,
        body: JSON.stringify(args),
      });
      text = await response.text();
    } catch (error) {
      throw rpcError(attempt, { message: error instanceof Error ? error.message : String(error) });
    }
    if (!response.ok) throw rpcError(attempt, refusal(text, response));
    if (text === "") return null as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw rpcError(attempt, { message: `the API answered something that is not JSON` });
    }
  }

  /** The headers that make a request act as `caller`: their JWT, else the secret key. */
  #headers(caller: Caller): Record<string, string> {
    const { publishableKey, secretKey } = this.#options;
    if (caller.userId && caller.token) {
      return { apikey: publishableKey, authorization: `Bearer ${caller.token}` };
    }
    if (!secretKey) {
      throw new AppError(
        "UNAUTHORIZED",
        "This server stores conversations through Supabase's API and needs a signed-in user's JWT",
      );
    }
    return { apikey: secretKey, authorization: `Bearer ${secretKey}` };
  }
}

/** PostgREST's error object, or the status when the body is not one. */
function refusal(text: string, response: Response): { message: string; code?: string } {
  try {
    const body = JSON.parse(text) as { message?: unknown; code?: unknown };
    if (typeof body?.message === "string") {
      return { message: body.message, code: typeof body.code === "string" ? body.code : undefined };
    }
  } catch {
    // Not JSON: a gateway's page, say.
  }
  return { message: `HTTP ${response.status} ${response.statusText}`.trim() };
}

function rpcError(attempt: string, error: { message: string; code?: string }): AppError {
  return new AppError(
    "DB_UNAVAILABLE",
    `Could not ${attempt} through Supabase: ${error.message}${
      error.code ? ` (${error.code})` : ""
    }`,
  );
}
