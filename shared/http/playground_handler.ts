/**
 * `GET /mcp-loop/playground`: a page that streams a run with the web client
 * (`/mcp-loop/playground/playground.js`, `/render.js` and `/client.js`, no CDN, no build
 * step for users). Its files come from the local server (shared/local/playground_files.ts):
 * deployed, Supabase would show the page as text, so the function holds a note instead
 * and keeps the files out of its bundle.
 */
import { AppError } from "../errors.ts";
import { SILENT_LOGGER } from "../ports.ts";
import { errorResponse } from "./responses.ts";

/** The playground's files by name ("" is the page): their text and content type. */
export type PlaygroundFiles = Readonly<Record<string, { body: string; type: string }>>;

/** The page (scripts from this origin only; the page calls this function and nothing else). */
const HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/**
 * What the page path answers when deployed: Supabase rewrites an Edge
 * Function's `text/html` answer to a GET into `text/plain` ("HTML content is
 * not supported", guides/functions/http-methods), so the page would show as
 * its source. Saying so beats showing that.
 */
export const DEPLOYED_PLAYGROUND_NOTE =
  "The mcp-loop playground cannot be shown here: Supabase serves an Edge Function's HTML as plain text (https://supabase.com/docs/guides/functions/http-methods).\n\n" +
  "Run it locally instead: `npx --yes deno@2.9.6 task start`, then open http://127.0.0.1:8000/mcp-loop/playground. " +
  "To use this project's database and models from there, set DATABASE_URL and the model settings in the local environment (docs/deploy.md#the-playground).\n";

/**
 * Builds the playground handler; `file` is "", "playground.js", "render.js" or
 * "client.js", served from `files` (none: only the deployed note, or 404).
 */
export function createPlaygroundHandler(
  { enabled, deployed = false, files = {} }: {
    enabled: boolean;
    deployed?: boolean;
    files?: PlaygroundFiles;
  },
): (file: string) => Response {
  return (file) => {
    if (enabled && deployed && file === "") {
      return new Response(DEPLOYED_PLAYGROUND_NOTE, {
        headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" },
      });
    }
    const found = enabled ? files[file] : undefined;
    if (!found) {
      return errorResponse(
        new AppError(
          "NOT_FOUND",
          !enabled
            ? "The playground is off here; set MCP_LOOP_PLAYGROUND=true to serve it"
            : file === ""
            ? "The playground's page is served by the local server: run `deno task start`"
            : `The playground has no file "${file}"`,
        ),
        { logger: SILENT_LOGGER },
      );
    }
    return new Response(found.body, { headers: { "content-type": found.type, ...HEADERS } });
  };
}
