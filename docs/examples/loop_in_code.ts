/**
 * The loop in code, no server: the embedded defaults (PGlite in memory, the
 * hashing embedder, the heuristic planner; OpenAI's models when
 * OPENAI_API_KEY is set), the built-in tools and one of your own.
 *
 *   npx --yes deno@2.9.6 run -A docs/examples/loop_in_code.ts "Start a spec refinement loop and record a score of 72"
 */
import { createLoop } from "../../shared/app/create_loop.ts";
import type { MCPResponse } from "../../shared/contracts.ts";
import tools from "../../functions/mcp-loop/tools.ts";

/** Runs one request through a fresh loop and returns the response. */
export async function main(message: string): Promise<MCPResponse> {
  // Only the OpenAI settings from the shell: the database stays in memory whatever else is set.
  const env = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) => name.startsWith("OPENAI_")),
  );
  const loop = createLoop({ tools, env });
  try {
    return await loop.run({
      mode: "general",
      sessionId: "example",
      messages: [{ role: "user", content: message }],
      maxRounds: 2,
    }, {
      onEvent: (event) => {
        if (event.type === "step_end") {
          const { tool, success, durationMs } = event.result;
          console.log(
            `step ${event.index} (round ${event.round}): ${tool} ${success ? "ok" : "failed"} in ${
              durationMs.toFixed(1)
            } ms`,
          );
        }
      },
    });
  } finally {
    await loop.close();
  }
}

if (import.meta.main) {
  const { data } = await main(
    Deno.args[0] ?? "Start a spec refinement loop and record a score of 72",
  );
  console.log(data.summaryMessage);
  console.log(`rounds: ${data.rounds}, stopped: ${data.stopReason}`);
}
