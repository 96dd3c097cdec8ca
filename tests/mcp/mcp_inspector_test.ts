/**
 * The MCP Inspector's CLI against the endpoint on loopback, as people run it
 * (`npx --yes @modelcontextprotocol/inspector@<version> --cli <url> …`): 0.15.0,
 * the last release without a Node engine floor, and 2.12.0 (which asks for
 * Node 22.19 yet runs on Node 20 too). Neither CLI declares elicitation (2.12
 * passes `elicit: false`; 0.15 declares no capabilities), in either era, so it
 * cannot be asked: a call needing approval gets the refusal that says how else
 * to get it run, and nothing runs. Each version is skipped, with a notice,
 * when npx cannot fetch it.
 */
import assert from "node:assert/strict";
import { approvalsSetup } from "../support/mcp_approvals_fixture.ts";
import { tempDirRemovedAtExit } from "../support/process.ts";

const VERSIONS = ["0.15.0", "2.12.0"] as const;

/** Runs the Inspector CLI `version` with `args`: its exit code and output. */
async function inspector(version: string, args: string[]) {
  const output = await new Deno.Command("npx", {
    args: ["--yes", `@modelcontextprotocol/inspector@${version}`, "--cli", ...args],
    cwd: await tempDirRemovedAtExit("mcp-loop-inspector-"),
    env: { NO_COLOR: "1", npm_config_update_notifier: "false" },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(300_000),
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/** Whether npx can fetch and start `version` here (it prints its usage and exits 0). */
async function available(version: string): Promise<boolean> {
  try {
    const { code } = await inspector(version, ["--help"]);
    if (code === 0) return true;
  } catch {
    // npx missing, or the fetch hung.
  }
  console.warn(
    `skipped: the MCP Inspector ${version} tests (npx could not fetch @modelcontextprotocol/inspector@${version})`,
  );
  return false;
}

/** The first JSON object the CLI printed (2.12 wraps the tool result in `result`). */
function toolResult(stdout: string): { isError?: boolean; content: { text: string }[] } {
  const parsed = JSON.parse(stdout.slice(stdout.indexOf("{")));
  return parsed.result ?? parsed;
}

for (const version of VERSIONS) {
  const ready = await available(version);
  Deno.test({
    name:
      `MCP Inspector ${version} CLI: a call needing approval is refused with how to get it approved; nothing runs`,
    ignore: !ready,
    fn: async () => {
      // No API keys: the 0.15 CLI cannot send headers.
      const t = await approvalsSetup({ MCP_LOOP_API_KEYS: "" });
      try {
        const eras = version.startsWith("0.") ? [[]] : [[], ["--protocol-era", "modern"]];
        for (const era of eras) {
          const run = await inspector(version, [
            t.url.href,
            "--transport",
            "http",
            ...era,
            ...(version.startsWith("0.") ? [] : ["--format", "json"]),
            "--method",
            "tools/call",
            "--tool-name",
            "delete_invoice",
            "--tool-arg",
            "id=inspected",
          ]);
          const result = toolResult(run.stdout);
          assert.equal(result.isError, true, `${era.join(" ")}: ${run.stdout}${run.stderr}`);
          assert.match(
            result.content[0].text,
            /Tool "delete_invoice" needs a person's approval before it runs .* did not declare the elicitation capability/,
          );
          // 0.15 exits 0 on a tool error; 2.12 exits 5 ("tool_is_error").
          assert.equal(run.code, version.startsWith("0.") ? 0 : 5);
        }
        assert.deepEqual(t.calls, []);
        const listed = await inspector(version, [t.url.href, "--method", "tools/list"]);
        assert.equal(listed.code, 0, listed.stderr);
        assert.match(listed.stdout, /"delete_invoice"/);
      } finally {
        await t.close();
      }
    },
  });
}
