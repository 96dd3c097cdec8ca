/**
 * The typed web client (the same module runs in browsers, Deno and Node):
 * stream a run's events, then show how a bad request fails. Start the function
 * first (`deno task start`), then:
 *
 *   npx --yes deno@2.9.6 run -A docs/examples/web_client.ts [http://127.0.0.1:8000/mcp-loop] [access-token]
 */
import { createMcpLoopClient, McpLoopError } from "../../shared/client/mcp_loop_client.ts";

/** Streams one run and one bad request; returns the event types and the error's code. */
export async function main(url: string, accessToken?: string) {
  const client = createMcpLoopClient({ url, accessToken });
  const events: string[] = [];
  for await (
    const event of client.stream({
      mode: "general",
      sessionId: "web-client-example",
      messages: [{ role: "user", content: "What time is it in Europe/Lisbon?" }],
    })
  ) {
    events.push(event.type);
    if (event.type === "step_end") console.log(`${event.result.tool}:`, event.result.output);
    if (event.type === "summary") console.log(event.summaryMessage);
  }
  try {
    await client.run({ mode: "general", sessionId: "", messages: [] });
    return { events, error: undefined };
  } catch (error) {
    if (!(error instanceof McpLoopError)) throw error;
    console.log(`${error.code} (${error.status}): ${error.message}`);
    return { events, error: { code: error.code, status: error.status } };
  }
}

if (import.meta.main) {
  const [url = "http://127.0.0.1:8000/mcp-loop", token] = Deno.args;
  console.log(await main(url, token));
}
