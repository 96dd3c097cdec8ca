/**
 * The playground's page and scripts (generated into shared/http/playground/assets.js
 * by `deno task build:playground`), served by the local server only: the deployed
 * function cannot show an HTML page, so its bundle leaves them out.
 */
import type { PlaygroundFiles } from "../http/playground_handler.ts";
import {
  CLIENT_SCRIPT,
  PLAYGROUND_HTML,
  PLAYGROUND_SCRIPT,
  RENDER_SCRIPT,
} from "../http/playground/assets.js";

/** The files by name, as `createApp(config, { playground })` takes them. */
export const PLAYGROUND_FILES: PlaygroundFiles = {
  "": { body: PLAYGROUND_HTML, type: "text/html; charset=utf-8" },
  "playground.js": { body: PLAYGROUND_SCRIPT, type: "text/javascript; charset=utf-8" },
  "render.js": { body: RENDER_SCRIPT, type: "text/javascript; charset=utf-8" },
  "client.js": { body: CLIENT_SCRIPT, type: "text/javascript; charset=utf-8" },
};
