/**
 * The official MCP conformance suite against the real endpoint on loopback:
 * the 2025-11-25 scenarios with @modelcontextprotocol/conformance 0.1.16 and
 * the 2026-07-28 ones with 0.2.0-alpha.12. The suite's CLI needs Node 22, so
 * it runs under Deno (`deno run -A npm:@modelcontextprotocol/conformance@…`);
 * the same commands are in docs/mcp.md. The server gets the suite's diagnostic
 * tools (tests/support/conformance_tools.ts) and one registry tool that needs
 * approval, which the tampered-state scenario calls. The 2025-11-25
 * elicitation scenarios run with sessions (their client declares elicitation).
 * The multi round-trip scenarios for sampling, roots and prompts are not run:
 * this server asks for nothing but approvals (elicitation), from tools.
 */
import assert from "node:assert/strict";
import { createAuthenticator } from "../../shared/auth/authenticator.ts";
import { createHostOriginCheck } from "../../shared/http/host_origin.ts";
import { NO_CALLER_LIMITS } from "../../shared/http/caller_limits.ts";
import { createMcpHttpHandler } from "../../shared/mcp/mcp_http_handler.ts";
import { SILENT_LOGGER } from "../../shared/ports.ts";
import { addDiagnosticTools, APPROVAL_PROBE_TOOL } from "../support/conformance_tools.ts";
import { mcpApp } from "../support/mcp_fixture.ts";
import { tempDirRemovedAtExit } from "../support/process.ts";

/** The CLI's terminal colours, removed before its summary line is read. */
const ANSI_COLOURS = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

const RUNS = [
  ...[
    "server-initialize",
    "ping",
    "tools-list",
    "dns-rebinding-protection",
    // A client that declares elicitation gets a session; these ask it on the call's SSE stream.
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
    "server-sse-multiple-streams",
  ].map((scenario) => ({
    version: "0.1.16",
    scenario,
    args: [] as string[],
  })),
  ...[
    "server-stateless",
    "tools-list",
    "caching",
    "sep-2164-resource-not-found",
    "dns-rebinding-protection",
    "http-header-validation",
    ...[
      "basic-elicitation",
      "request-state",
      "tampered-state",
      "missing-input-response",
      "validate-input",
      "ignore-extra-params",
      "result-type",
      "unsupported-methods",
      "capability-check",
    ].map((name) => `input-required-result-${name}`),
  ].map((scenario) => ({
    version: "0.2.0-alpha.12",
    scenario,
    args: ["--spec-version", "2026-07-28"],
  })),
];

Deno.test({
  name: `the MCP conformance suite passes: ${RUNS.map((r) => r.scenario).join(", ")}`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const app = await mcpApp({}, { tools: [APPROVAL_PROBE_TOOL] });
    const handler = createMcpHttpHandler({
      ...app.mcp,
      extend: addDiagnosticTools,
      authenticate: createAuthenticator(),
      hostOrigin: createHostOriginCheck({
        allowedHosts: new Set(["localhost", "127.0.0.1"]),
        origins: [],
      }),
      maxBodyBytes: 1_048_576,
      limits: NO_CALLER_LIMITS,
      logger: SILENT_LOGGER,
    });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req) => handler(req),
    );
    const url = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/mcp-loop/mcp`;
    try {
      const results = await inBatches(RUNS, 5, async ({ version, scenario, args }) => {
        const output = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            "--no-config",
            "--no-lock",
            `npm:@modelcontextprotocol/conformance@${version}`,
            "server",
            "--url",
            url,
            "--scenario",
            scenario,
            ...args,
          ],
          cwd: await tempDirRemovedAtExit("mcp-loop-conformance-"),
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = new TextDecoder().decode(output.stdout).replace(ANSI_COLOURS, "");
        const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(text);
        return { name: `${scenario} (${version})`, summary, text };
      });
      const failing = results.filter(({ summary }) =>
        !summary || summary[3] !== "0" || summary[4] !== "0"
      );
      assert.deepEqual(
        failing.map(({ name, text }) =>
          `${name}: ${text.split("\n").filter((l) => /FAIL|WARN|Passed/.test(l)).join(" | ")}`
        ),
        [],
      );
      for (const { summary, name } of results) assert.ok(Number(summary![1]) > 0, name);
    } finally {
      await server.shutdown();
      await app.close();
    }
  },
});

/** `work` over `items`, at most `size` at a time (each run is a Deno process; the machine has two cores). */
async function inBatches<T, R>(
  items: readonly T[],
  size: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) {
    results.push(...await Promise.all(items.slice(i, i + size).map(work)));
  }
  return results;
}
