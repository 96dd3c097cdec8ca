/**
 * `GET /mcp-loop/playground`: a page that streams a run with the web client
 * (`/mcp-loop/playground/playground.js`, `/render.js` and `/client.js`, no CDN, no build
 * step for users). On locally; when deployed only with MCP_LOOP_PLAYGROUND=true.
 */
import { AppError } from "../errors.ts";
import { SILENT_LOGGER } from "../ports.ts";
import {
  CLIENT_SCRIPT,
  PLAYGROUND_HTML,
  PLAYGROUND_SCRIPT,
  RENDER_SCRIPT,
} from "./playground/assets.js";
import { errorResponse } from "./responses.ts";

const FILES: Record<string, { body: string; type: string }> = {
  "": { body: PLAYGROUND_HTML, type: "text/html; charset=utf-8" },
  "playground.js": { body: PLAYGROUND_SCRIPT, type: "text/javascript; charset=utf-8" },
  "render.js": { body: RENDER_SCRIPT, type: "text/javascript; charset=utf-8" },
  "client.js": { body: CLIENT_SCRIPT, type: "text/javascript; charset=utf-8" },
};

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

/** Builds the playground handler; `file` is "", "playground.js", "render.js" or "client.js". */
export function createPlaygroundHandler(
  { enabled, deployed = false }: { enabled: boolean; deployed?: boolean },
): (file: string) => Response {
  return (file) => {
    if (enabled && deployed && file === "") {
      return new Response(DEPLOYED_PLAYGROUND_NOTE, {
        headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" },
      });
    }
    const found = enabled ? FILES[file] : undefined;
    if (!found) {
      return errorResponse(
        new AppError(
          "NOT_FOUND",
          enabled
            ? `The playground has no file "${file}"`
            : "The playground is off here; set MCP_LOOP_PLAYGROUND=true to serve it",
        ),
        { logger: SILENT_LOGGER },
      );
    }
    return new Response(found.body, { headers: { "content-type": found.type, ...HEADERS } });
  };
}
