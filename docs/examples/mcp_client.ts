/**
 * The official MCP SDK client against the function: list the tools, call one,
 * and call one that needs a person's approval — the server asks first
 * (`elicitation/create`), and this client asks you on the terminal. Start the
 * function first (`deno task start`), then:
 *
 *   npx --yes deno@2.9.6 run -A docs/examples/mcp_client.ts [http://127.0.0.1:8000/mcp-loop/mcp] [api-key] [--2026]
 *
 * By default the client speaks MCP 2025-11-25 (it declares elicitation, so the
 * server gives it a session and asks on the call's stream); `--2026` pins it
 * to 2026-07-28 (the question comes back as an `input_required` result, which
 * the SDK answers by itself and retries).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** What the example does: `modern` pins 2026-07-28; `approve` answers approval questions. */
export interface ExampleOptions {
  modern?: boolean;
  /** Whether to approve what `question` asks (default: ask on the terminal; no terminal says no). */
  approve?: (question: string) => boolean | Promise<boolean>;
}

/**
 * Connects to `url`, lists the tools, asks `get_current_time` for Lisbon, and
 * asks `forget_session` to forget a conversation named "example-scratch" (a
 * destructive tool: it runs only if approved; on a server that never held
 * that conversation, it runs and answers that there is none to delete).
 */
export async function main(
  url: string,
  apiKey?: string,
  { modern = false, approve = (question) => confirm(question) }: ExampleOptions = {},
) {
  const client = new Client({ name: "mcp-loop-example", version: "1.0.0" }, {
    // Declaring form elicitation lets the server ask before a tool that needs approval runs.
    capabilities: { elicitation: { form: {} } },
    ...(modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
  });
  client.setRequestHandler("elicitation/create", async (request) => {
    const yes = await approve(request.params.message);
    return yes ? { action: "accept", content: { approve: true } } : { action: "decline" };
  });
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
    const forget = await client.callTool({
      name: "forget_session",
      arguments: { session_id: "example-scratch" },
    });
    return {
      tools: tools.map((tool) => tool.name),
      time: time.structuredContent,
      forget: {
        failed: forget.isError === true,
        text: (forget.content as { type: string; text?: string }[])[0]?.text,
      },
    };
  } finally {
    await client.close();
  }
}

if (import.meta.main) {
  const modern = Deno.args.includes("--2026");
  const [url = "http://127.0.0.1:8000/mcp-loop/mcp", apiKey] = Deno.args.filter((arg) =>
    arg !== "--2026"
  );
  console.log(await main(url, apiKey, { modern }));
}
