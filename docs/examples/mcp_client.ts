/**
 * The official MCP SDK client against the function: list the tools, call one.
 * Start the function first (`deno task start`), then:
 *
 *   npx --yes deno@2.9.6 run -A docs/examples/mcp_client.ts [http://127.0.0.1:8000/mcp-loop/mcp] [api-key]
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** Connects to `url`, lists the tools and asks `get_current_time` for Lisbon. */
export async function main(url: string, apiKey?: string) {
  const client = new Client({ name: "mcp-loop-example", version: "1.0.0" });
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  try {
    const { tools } = await client.listTools();
    const time = await client.callTool({
      name: "get_current_time",
      arguments: { time_zone: "Europe/Lisbon" },
    });
    return { tools: tools.map((tool) => tool.name), time: time.structuredContent };
  } finally {
    await client.close();
  }
}

if (import.meta.main) {
  const [url = "http://127.0.0.1:8000/mcp-loop/mcp", apiKey] = Deno.args;
  console.log(await main(url, apiKey));
}
