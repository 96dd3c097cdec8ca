/**
 * The `mcp-loop` edge function: read the configuration, build the app, serve
 * it. All logic lives in `shared/`.
 */
import { createApp } from "../../shared/app/app.ts";
import { loadConfigOrExit } from "../../shared/config/config.ts";

const config = loadConfigOrExit();
const app = createApp(config);
const server = Deno.serve({ port: config.port }, app.fetch);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  try {
    Deno.addSignalListener(signal, async () => {
      await server.shutdown();
      await app.close();
      Deno.exit(0);
    });
  } catch {
    // Runtimes without signal listeners (the edge runtime) stop the isolate themselves.
  }
}
