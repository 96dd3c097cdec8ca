/**
 * The `mcp-loop` edge function: read the configuration, build the app with
 * the application's tools (`./tools.ts`), serve it. All logic lives in `shared/`.
 */
import { createApp } from "../../shared/app/app.ts";
import { loadConfigOrExit } from "../../shared/config/config.ts";
import tools from "./tools.ts";

const config = loadConfigOrExit();
const app = createApp(config, { tools });
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
