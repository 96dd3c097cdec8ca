/**
 * The clients a tool call gets besides its args: supabase-js acting as the
 * caller (when the project's API is configured) and the database port.
 * supabase-js is imported on the first tool call that could use it, and a
 * client is built only when a tool reads `supabase`.
 */
import type { SupabaseApiSettings } from "../adapters/supabase/caller_client.ts";
import type { Sql } from "../ports.ts";
import type { ToolServices } from "../tools/tool.ts";

/** Builds the services of tool calls. */
export function createToolServices(
  { supabaseApi, sql }: { supabaseApi?: SupabaseApiSettings; sql: Sql },
): ToolServices {
  if (!supabaseApi) return () => Promise.resolve({ sql });
  let loading: Promise<typeof import("../adapters/supabase/caller_client.ts")> | undefined;
  return async (caller) => {
    loading ??= import("../adapters/supabase/caller_client.ts");
    const { createCallerClient } = await loading;
    let client: ReturnType<typeof createCallerClient> | undefined;
    return {
      sql,
      get supabase() {
        return client ??= createCallerClient(supabaseApi, caller);
      },
    };
  };
}
