/**
 * The application's own tools: the one file to edit to give the loop (and
 * MCP clients) your tools. Export an array of `defineTool(...)`; each tool has
 * a name, a description a model can choose it by, a Zod schema for its args,
 * and `run`. `run` also gets `caller`, `signal`, `sql`, the database port
 * (which bypasses RLS on a direct connection), and — once `supabaseClient`
 * below is set — `supabase`, a supabase-js client acting as the caller (their
 * access token, so row level security applies).
 *
 * A tool that only reads should say so (`readOnlyHint: true`): the loop then
 * runs it beside other read-only steps, and MCP clients may call it freely.
 * An output with a `summary` string gives the reply written without a model
 * its sentence for the step, and `together(outputs)` a sentence about several
 * calls of the tool in one reply (docs/offline.md).
 */
import { z } from "zod";
import type { SupabaseClientFactory } from "../../shared/adapters/supabase/caller_client.ts";
import {
  hoursBetween,
  type Place,
  resolvePlace,
  timesIn,
} from "../../shared/places/place_time_zones.ts";
import { defineTool, type ToolDefinition } from "../../shared/tools/tool.ts";

/**
 * What time it is now in a place: a small tool that needs no database or
 * network. A place with several time zones (a country such as Australia, a
 * name such as Hyderabad) gets the time in each, and the answer says so.
 */
const currentTime = defineTool({
  name: "get_current_time",
  description:
    "Get the current date, day and time in a place: an IANA time zone (Europe/Lisbon), a city (Tokyo) or a country (India); UTC when none is given.",
  argsSchema: z.object({
    time_zone: z.string().max(64).optional()
      .transform((text, ctx): Place | undefined => {
        if (text === undefined) return undefined;
        const place = resolvePlace(text);
        if (place) return place;
        ctx.addIssue({
          code: "custom",
          message:
            `Unknown place "${text}": give an IANA time zone such as Europe/Lisbon, a city such as Tokyo, or a country such as India`,
        });
        return z.NEVER;
      })
      .describe("A place: an IANA time zone like Europe/Lisbon, a city like Tokyo, or a country"),
  }),
  outputSchema: z.object({
    place: z.string(),
    time_zone: z.string(),
    iso: z.string(),
    local: z.string(),
    summary: z.string(),
    times: z.array(z.object({ time_zone: z.string(), label: z.string(), local: z.string() })),
  }),
  annotations: {
    title: "Current time",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
  },
  run: ({ args }) => {
    const now = new Date();
    const place = args.time_zone ?? { name: "UTC", zones: [{ zone: "UTC", label: "UTC" }] };
    const { times, summary } = timesIn(place, now);
    return {
      place: place.name,
      time_zone: times[0].time_zone,
      iso: now.toISOString(),
      local: times[0].local,
      summary: args.time_zone ? summary : `${summary} Name a city or a country for its local time.`,
      times,
    };
  },
  // Several places read in one reply: the hours between them ("Tokyo is 8 hours ahead of Paris.").
  together: (outputs) => hoursBetween(outputs.filter((output) => output.times.length === 1)),
});

// Add your tools to this list (see docs/examples/custom_tool.ts for one that reads your tables).
// Typed as a list of any tools, so that tools with other args can join it.
const tools: ToolDefinition[] = [currentTime];
export default tools;

/**
 * Tools get `supabase` once this is `createCallerClient`, imported from
 * "../../shared/adapters/supabase/caller_client.ts". Off by default: supabase-js
 * adds about 0.8 MB to the deployed bundle (docs/deploy.md#bundle-size).
 */
export const supabaseClient: SupabaseClientFactory | undefined = undefined;
