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
    "Get the current date and time in a time zone (an IANA name such as Europe/Lisbon, or a city such as Tokyo; UTC when not given).",
  argsSchema: z.object({
    time_zone: z.string().max(64).default("UTC")
      .transform((zone, ctx) => {
        const resolved = resolveTimeZone(zone);
        if (resolved) return resolved;
        ctx.addIssue({
          code: "custom",
          message:
            "time_zone must be an IANA time zone such as Europe/Lisbon or America/New_York, or a city such as Tokyo",
        });
        return z.NEVER;
      })
      .describe("IANA time zone, like Europe/Lisbon, or a city, like Tokyo"),
  }),
  outputSchema: z.object({ time_zone: z.string(), iso: z.string(), local: z.string() }),
  annotations: {
    title: "Current time",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
  },
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

/** An IANA time zone by its name ("asia/tokyo" too) or its city ("Tokyo", "New York"), else undefined. */
function resolveTimeZone(name: string): string | undefined {
  try {
    const { timeZone } = new Intl.DateTimeFormat("en", { timeZone: name }).resolvedOptions();
    // An alias stays as written (Asia/Kolkata, not the canonical Asia/Calcutta); only its case is fixed.
    return timeZone.toLowerCase() === name.toLowerCase() ? timeZone : name;
  } catch {
    const city = name.trim().replaceAll(" ", "_").toLowerCase();
    return Intl.supportedValuesOf("timeZone").find((zone) =>
      zone.split("/").at(-1)!.toLowerCase() === city
    );
  }
}

// Add your tools to this list (see docs/examples/custom_tool.ts for one that reads your tables).
export default [currentTime];
