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
} from "./playground/assets.ts";
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

/** Builds the playground handler; `file` is "", "playground.js", "render.js" or "client.js". */
export function createPlaygroundHandler(
  { enabled }: { enabled: boolean },
): (file: string) => Response {
  return (file) => {
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
