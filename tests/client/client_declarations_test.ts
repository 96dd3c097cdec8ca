/**
 * The `.d.ts` that `deno task build:client` writes beside the bundle stands
 * alone and gives a TypeScript app the client's types: TypeScript's checker
 * (npm `typescript`, strict, no emit) accepts an app that uses the client
 * correctly and rejects one that misuses it, against the bundle and its
 * `.d.ts` copied into an empty folder.
 */
import assert from "node:assert/strict";
import ts from "typescript";
import { bundleClient } from "../../shared/client/bundle.ts";
import { clientDeclarations, declarationPath } from "../../shared/client/client_declarations.ts";

const PUBLIC_NAMES = [
  "ActionResult",
  "ApprovalDecision",
  "CallOptions",
  "ChatMessage",
  "ChatRole",
  "ClientErrorCode",
  "ContextMessage",
  "ErrorBody",
  "EventsOptions",
  "LoopEvent",
  "LoopOutput",
  "LoopRequest",
  "LoopResponse",
  "LoopResult",
  "LoopTypeName",
  "McpLoopClient",
  "McpLoopClientOptions",
  "McpLoopError",
  "Mode",
  "PendingApproval",
  "PlannedAction",
  "RefinementRequest",
  "ReportedAction",
  "Resolvable",
  "RunEvent",
  "RunStatus",
  "RunView",
  "ServerError",
  "StopReason",
  "StreamEvent",
  "StreamedEvent",
  "ToolMetadata",
  "Usage",
  "createMcpLoopClient",
];

/** Uses every part of the API the way an app would; must type-check with no error. */
const GOOD_APP = `
import {
  createMcpLoopClient,
  McpLoopError,
  type ApprovalDecision,
  type ClientErrorCode,
  type EventsOptions,
  type LoopRequest,
  type LoopResult,
  type PendingApproval,
  type RunEvent,
  type RunStatus,
  type RunView,
  type StreamEvent,
  type StreamedEvent,
} from "./mcp-loop-client.js";

const client = createMcpLoopClient({
  url: new URL("https://example.supabase.co/functions/v1/mcp-loop"),
  accessToken: async () => "token",
  headers: { apikey: "anon" },
  fetch: (input, init) => fetch(input, init),
});
const request: LoopRequest = {
  mode: "general",
  sessionId: "s-1",
  messages: [{ role: "user", content: "hi" }],
  availableTools: [{ name: "get_time" }],
  refinement: { loopType: "plan" },
};

export async function app(signal: AbortSignal): Promise<string[]> {
  const data: LoopResult = await client.run(request, { signal });
  const seen: string[] = [data.stopReason ?? "", String(data.usage?.promptTokens)];
  for await (const event of client.stream(request)) seen.push(describe(event));
  try {
    await client.run({ ...request, messages: [] });
  } catch (error) {
    if (error instanceof McpLoopError) {
      const own: ClientErrorCode[] = ["NETWORK_ERROR", "ABORTED", "BAD_RESPONSE"];
      seen.push(error.code, String(error.status), String(own.includes(error.code as never)));
    }
  }
  return seen;
}

/** Approvals, resume, cancel, the run's view and its events, with a reconnect from the last id. */
export async function steer(request: LoopRequest): Promise<string[]> {
  const seen: string[] = [];
  let data: LoopResult = await client.run(request);
  const pending: PendingApproval[] = data.pendingApprovals ?? [];
  if (data.stopReason === "approval_required" && data.runId) {
    const approvals: ApprovalDecision[] = pending.map((p, i) =>
      i === 0 ? { id: p.id, approved: true } : { id: p.id, approved: false, reason: "no" }
    );
    data = await client.approve(data.runId, approvals, { signal: AbortSignal.timeout(5000) });
    for await (const event of client.approveStream(data.runId!, approvals)) {
      const streamed: StreamedEvent = event;
      seen.push(describe(streamed), String(streamed.id ?? ""));
    }
  }
  const runId = data.runId ?? "";
  const resumed: LoopResult = await client.resume(runId);
  for await (const event of client.resumeStream(runId)) seen.push(describe(event));
  const view: RunView = await client.getRun(runId);
  const status: RunStatus = view.status;
  seen.push(status, String(view.lastEventId), String(resumed.rounds), view.plan[0]?.tool ?? "");
  seen.push(view.pendingApprovals.map((p) => p.expiresAt).join(), view.error?.code ?? "");
  const options: EventsOptions = { lastEventId: view.lastEventId, retries: 2, retryMs: 100 };
  for await (const event of client.events(runId, options)) {
    const logged: RunEvent = event;
    seen.push(\`\${logged.id} \${describe(logged)}\`);
  }
  const cancelled: RunView = await client.cancel(runId);
  seen.push(cancelled.stopReason ?? cancelled.status);
  return seen;
}

function describe(event: StreamEvent): string {
  switch (event.type) {
    case "context":
      return event.messages.recent.map((m) => m.preview).join() + event.embeddingModel;
    case "round_start":
      return \`\${event.round}/\${event.maxRounds}\`;
    case "plan":
      return event.plan.map((step) => step.tool).join() + event.repaired;
    case "step_start":
      return event.tool + Object.keys(event.args).join();
    case "step_end":
      return \`\${event.index} \${event.result.tool} \${event.result.success} \${event.result.durationMs}\`;
    case "score":
      return \`\${event.score} \${event.loop.current_score} \${event.decision}\`;
    case "summary":
      return event.summaryMessage;
    case "result":
      return event.data.summaryMessage ?? event.data.plan.map((step) => step.round).join();
    case "error":
      return \`\${event.error.code}: \${event.error.message}\`;
    case "run":
      return event.runId;
    case "approval_required":
      return event.pendingApprovals.map((p) => \`\${p.tool} \${p.step} \${p.expiresAt}\`).join();
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}
`;

/** Misuses, each on its own line: an app's error each, found by the checker. */
const BAD_APPS: Record<string, { source: string; error: RegExp }> = {
  "wrong_mode.ts": {
    source: `client.run({ mode: "wizard", sessionId: "s", messages: [] });`,
    error: /"wizard"/,
  },
  "missing_field.ts": {
    source:
      `for await (const e of client.stream(request)) if (e.type === "step_end") e.result.score;`,
    error: /Property 'score' does not exist/,
  },
  "wrong_event_field.ts": {
    source:
      `for await (const e of client.stream(request)) if (e.type === "step_end") e.summaryMessage;`,
    error: /Property 'summaryMessage' does not exist/,
  },
  "wrong_type.ts": {
    source: `const rounds: string | undefined = (await client.run(request)).rounds;`,
    error: /Type 'number \| undefined' is not assignable to type 'string \| undefined'/,
  },
  "event_id_optional.ts": {
    source: `for await (const e of client.stream(request)) { const id: number = e.id; }`,
    error: /Type 'number \| undefined' is not assignable to type 'number'/,
  },
  "approval_shape.ts": {
    source: `client.approve("r", [{ id: "a", approve: true }]);`,
    error: /'approve' does not exist in type 'ApprovalDecision'/,
  },
  "missing_option.ts": {
    source: `createMcpLoopClient({ accessToken: "t" });`,
    error: /Property 'url' is missing/,
  },
};

const BAD_PRELUDE = `
import { createMcpLoopClient, type LoopRequest } from "./mcp-loop-client.js";
const client = createMcpLoopClient({ url: "http://127.0.0.1:8000/mcp-loop" });
const request: LoopRequest = { mode: "general", sessionId: "s", messages: [] };
`;

const STRICT: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.asynciterable.d.ts"],
  types: [],
};

Deno.test("the client's .d.ts has no import or require and declares the whole public API", async () => {
  const text = await clientDeclarations();
  const sf = ts.createSourceFile("mcp-loop-client.d.ts", text, ts.ScriptTarget.Latest, true);
  const code = ts.createPrinter({ removeComments: true }).printFile(sf);
  assert.doesNotMatch(code, /\bimport\b|\brequire\b/, "no module is named");
  assert.deepEqual([...sf.referencedFiles, ...sf.typeReferenceDirectives], []);
  const exported = sf.statements.flatMap((s) =>
    ts.canHaveModifiers(s) &&
      ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) &&
      "name" in s && s.name && ts.isIdentifier(s.name as ts.Node)
      ? [(s.name as ts.Identifier).text]
      : []
  );
  assert.deepEqual(exported.toSorted(), PUBLIC_NAMES.toSorted());
  assert.equal(exported.length, sf.statements.length, "every declaration is exported");
});

Deno.test("declarationPath puts the types beside the module", () => {
  assert.equal(declarationPath("dist/mcp-loop-client.js"), "dist/mcp-loop-client.d.ts");
  assert.equal(declarationPath("web/client.mjs"), "web/client.d.mts");
  assert.equal(declarationPath("client"), "client.d.ts");
});

Deno.test("a strict TypeScript app type-checks against the bundle's .d.ts, and misuses fail", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mcp-loop-client-types-" });
  try {
    const bundle = await bundleClient();
    await Deno.writeTextFile(`${dir}/mcp-loop-client.js`, bundle);
    await Deno.writeTextFile(`${dir}/mcp-loop-client.d.ts`, await clientDeclarations());
    await Deno.writeTextFile(`${dir}/app.ts`, GOOD_APP);
    for (const [name, { source }] of Object.entries(BAD_APPS)) {
      await Deno.writeTextFile(`${dir}/${name}`, `${BAD_PRELUDE}${source}\nexport {};\n`);
    }
    const files = ["app.ts", ...Object.keys(BAD_APPS)].map((name) => `${dir}/${name}`);
    const program = ts.createProgram(files, STRICT);
    const errors = new Map<string, string[]>();
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const file = d.file ? d.file.fileName.slice(dir.length + 1) : "(options)";
      const messages = errors.get(file) ?? [];
      errors.set(file, [...messages, ts.flattenDiagnosticMessageText(d.messageText, "\n")]);
    }
    assert.deepEqual(errors.get("mcp-loop-client.d.ts"), undefined, "the .d.ts itself checks");
    assert.deepEqual(errors.get("(options)"), undefined);
    assert.deepEqual(errors.get("app.ts"), undefined, "the app uses the client correctly");
    for (const [name, { error }] of Object.entries(BAD_APPS)) {
      const found = errors.get(name) ?? [];
      assert.equal(found.length, 1, `${name}: ${found.join(" | ") || "no error"}`);
      assert.match(found[0], error);
    }
    const values = Object.keys(await import(`file://${dir}/mcp-loop-client.js`)).sort();
    assert.deepEqual(
      values,
      ["McpLoopError", "createMcpLoopClient"],
      "the .js has what it declares",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
