/** The app with the OpenAI adapters against the strict fake OpenAI API, for the HTTP tests. */
import { z } from "zod";
import { defineTool } from "../../shared/tools/tool.ts";
import { FakeOpenAiServer } from "../fakes/fake_openai_server.ts";
import { post, testApp, validBody } from "../support/test_app.ts";
import type { ConfigOptions } from "../../shared/config/config_options.ts";

/** The API key the app is given. */
export const KEY = "sk-test-abcdefghijklmnopSECRET";

/** `get_weather`, which records the cities it is called with. */
export function weatherTool(calls: string[]) {
  return defineTool({
    name: "get_weather",
    description: "Current weather for a city",
    argsSchema: z.object({ city: z.string() }),
    annotations: { readOnlyHint: true },
    run: ({ args }) => {
      calls.push(args.city);
      return { city: args.city, forecast: "sunny", celsius: 24 };
    },
  });
}

/** Runs `fn` with a fake server and an app configured for it (plus `env`). */
export async function withOpenAi(
  fn: (
    ctx: { server: FakeOpenAiServer; app: ReturnType<typeof testApp>; calls: string[] },
  ) => Promise<void>,
  env: Record<string, string> = {},
  options: ConfigOptions = {},
) {
  const server = FakeOpenAiServer.start();
  const calls: string[] = [];
  const app = testApp({ tools: [weatherTool(calls)] }, {
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: server.baseUrl,
    ...env,
  }, options);
  try {
    await fn({ server, app, calls });
  } finally {
    await server.close();
  }
}

/** A plan of `get_weather` for Lisbon, then `finalize_summary`. */
export const plan = JSON.stringify([
  { tool: "get_weather", args: { city: "Lisbon" } },
  { tool: "finalize_summary", args: {} },
]);

/** POSTs one loop request with `content`. */
export async function run(
  app: ReturnType<typeof testApp>,
  content = "What's the weather in Lisbon?",
) {
  const res = await app.app.fetch(post(validBody(content)));
  return { status: res.status, json: await res.json() };
}
