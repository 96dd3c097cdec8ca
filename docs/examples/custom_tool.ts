/**
 * A tool that reads the application's own data as the caller. Where the
 * application gives tools supabase-js (`supabaseClient` in
 * functions/mcp-loop/tools.ts) and Supabase settings are present, it uses
 * `supabase` (the caller's token, so row level security decides what they
 * see); otherwise (locally, PGlite) it uses `sql`, which bypasses RLS — so it
 * filters by the caller itself.
 *
 * Copy the tool into functions/mcp-loop/tools.ts to serve it. Run this file to
 * see the loop choose it:
 *
 *   npx --yes deno@2.9.6 run -A docs/examples/custom_tool.ts
 */
import { z } from "zod";
import { createLoop } from "../../shared/app/create_loop.ts";
import { defineTool } from "../../shared/tools/tool.ts";

/** How many messages the caller has stored in a session, and the latest one. */
export const sessionStats = defineTool({
  name: "get_session_stats",
  description:
    "Count the stored messages of one of your chat sessions and show the latest message.",
  argsSchema: z.object({
    session_id: z.string().min(1).max(200).describe("the chat session's id"),
  }),
  outputSchema: z.object({ messages: z.int(), latest: z.string().nullable() }),
  annotations: { title: "Session stats", readOnlyHint: true },
  run: async ({ args, caller, supabase, sql }) => {
    if (supabase) {
      // Row level security limits the rows to the signed-in user's own.
      const { data, error, count } = await supabase.from("chat_messages")
        .select("content", { count: "exact" })
        .eq("session_id", args.session_id)
        .order("seq", { ascending: false })
        .limit(1);
      if (error) throw new Error(error.message);
      return { messages: count ?? 0, latest: data?.[0]?.content ?? null };
    }
    if (!sql) throw new Error("get_session_stats needs supabase-js or a database");
    // A direct connection sees every row: scope by the caller.
    const [row] = await sql.query<{ messages: number; latest: string | null }>(
      `select count(*)::int as messages,
              (array_agg(content order by seq desc))[1] as latest
         from public.chat_messages
        where owner = $1 and session_id = $2`,
      [caller.owner, args.session_id],
    );
    return { messages: row?.messages ?? 0, latest: row?.latest ?? null };
  },
});

/** Stores one turn, then asks the loop about the session; returns the tool's step. */
export async function main() {
  const loop = createLoop({ tools: [sessionStats] });
  try {
    const request = (content: string) => ({
      mode: "general" as const,
      sessionId: "notes",
      messages: [{ role: "user" as const, content }],
    });
    await loop.run(request("Remember: the launch is on Friday"));
    const { data } = await loop.run({
      ...request("How many stored messages does my chat session have?"),
      context: { session_id: "notes" },
    });
    return data.intermediateResults.find((step) => step.tool === sessionStats.name);
  } finally {
    await loop.close();
  }
}

if (import.meta.main) console.log(await main());
