/**
 * The application's own tools: the one file to edit to give the loop (and
 * MCP clients) your tools. Export an array of `defineTool(...)`; each tool has
 * a name, a description a model can choose it by, a Zod schema for its args,
 * and `run`. `run` also gets `caller`, `signal`, and — when the function has
 * Supabase settings — `supabase`, a supabase-js client acting as the caller
 * (their access token, so row level security applies), and `sql`, the
 * database port (which bypasses RLS on a direct connection).
 *
 * A tool that only reads should say so (`readOnlyHint: true`): the loop then
 * runs it beside other read-only steps, and MCP clients may call it freely.
 */
import { z } from "zod";
import { defineTool } from "../../shared/tools/tool.ts";

/** What time it is now in a time zone: a small tool that needs no database or network. */
const currentTime = defineTool({
  name: "get_current_time",
  description:
    "Get the current date and time in a time zone (an IANA name such as Europe/Lisbon; UTC when not given).",
  argsSchema: z.object({
    time_zone: z.string().max(64).default("UTC")
      .refine((zone) => Intl.supportedValuesOf("timeZone").includes(zone) || zone === "UTC", {
        error: "time_zone must be an IANA time zone such as Europe/Lisbon or America/New_York",
      })
      .describe("IANA time zone, like Europe/Lisbon"),
  }),
  outputSchema: z.object({ time_zone: z.string(), iso: z.string(), local: z.string() }),
  annotations: { title: "Current time", readOnlyHint: true, idempotentHint: false },
  run: ({ args }) => {
    const now = new Date();
    const local = new Intl.DateTimeFormat("en-GB", {
      timeZone: args.time_zone,
      dateStyle: "full",
      timeStyle: "long",
    }).format(now);
    return { time_zone: args.time_zone, iso: now.toISOString(), local };
  },
});

// Add your tools to this list (see docs/examples/custom_tool.ts for one that reads your tables).
export default [currentTime];
