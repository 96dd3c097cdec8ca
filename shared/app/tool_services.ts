/**
 * The clients a tool call gets besides its args: the database port, and
 * supabase-js acting as the caller when the application passes its factory
 * (`supabaseClient`) and the project's API is configured. A client is built
 * only when a tool reads `supabase`.
 */
import type {
  SupabaseApiSettings,
  SupabaseClientFactory,
} from "../adapters/supabase/caller_client.ts";
import type { Sql } from "../ports.ts";
import type { ToolServices } from "../tools/tool.ts";

/** Builds the services of tool calls. */
export function createToolServices(
  { supabaseApi, supabaseClient, sql }: {
    supabaseApi?: SupabaseApiSettings;
    supabaseClient?: SupabaseClientFactory;
    sql: Sql;
  },
): ToolServices {
  if (!supabaseApi || !supabaseClient) return () => Promise.resolve({ sql });
  return (caller) => {
    let client: ReturnType<SupabaseClientFactory> | undefined;
    return Promise.resolve({
      sql,
      get supabase() {
        return client ??= supabaseClient(supabaseApi, caller);
      },
    });
  };
}
