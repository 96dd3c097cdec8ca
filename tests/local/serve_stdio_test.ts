/**
 * `deno task mcp:stdio` as desktop clients run it: it exits when the client
 * closes stdin or on a signal (after flushing the audit log), also when
 * launched through `npx … task`, and answers malformed input without dying.
 */
import assert from "node:assert/strict";
import { PgliteSql } from "../../shared/adapters/pglite/pglite_sql.ts";
import { lockHolder } from "../../shared/local/data_dir_lock.ts";
import { handPicked } from "../reliability/mcp_corpus_cases.ts";
import {
  INITIALIZE,
  initializedDataDir,
  spawnProcess,
  START_TIMEOUT_MS,
} from "../support/process.ts";

const stdio = (env: Record<string, string>) =>
  spawnProcess(["task", "--quiet", "mcp:stdio"], { env });

const byId = (id: number) => (line: string) => JSON.parse(line).id === id;

Deno.test("the stdio server exits with code 0 after the client closes stdin", async () => {
  const server = stdio({ MCP_LOOP_DATA_DIR: await initializedDataDir() });
  try {
    await server.send(INITIALIZE);
    await server.waitForLine(byId(0));
    await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await server.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const listed = JSON.parse(await server.waitForLine(byId(1)));
    assert.ok(listed.result.tools.length >= 5);
    await server.closeStdin();
    const status = await server.exited(START_TIMEOUT_MS);
    assert.ok(status, "the process is gone after stdin closed");
    assert.equal(status.code, 0);
  } finally {
    await server.kill();
  }
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`${signal} stops the stdio server with code 0 after the audit row is written`, async () => {
    const dataDir = await initializedDataDir();
    const server = stdio({ MCP_LOOP_DATA_DIR: dataDir });
    try {
      await server.send(INITIALIZE);
      await server.waitForLine(byId(0));
      await server.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "initialize_refinement_loop",
          arguments: { loop_type: signal === "SIGINT" ? "plan" : "spec" },
        },
      });
      await server.waitForLine(byId(1));
      server.child.kill(signal);
      const status = await server.exited(START_TIMEOUT_MS);
      assert.equal(status?.code, 0, server.stderr());
    } finally {
      await server.kill();
    }
    // The lock is free and the row is there: the next process opens the folder and reads it.
    assert.equal(lockHolder(dataDir), undefined);
    const sql = await PgliteSql.open({ dataDir });
    const rows = await sql.query<{ tool: string }>("select tool from mcp_events");
    await sql.close();
    assert.deepEqual(rows.map((r) => r.tool), ["initialize_refinement_loop"]);
  });
}

Deno.test("malformed input on stdio gets JSON-RPC errors, readable -32602s, and the server keeps answering", async () => {
  const server = stdio({ MCP_LOOP_DATA_DIR: await initializedDataDir() });
  try {
    await server.send(INITIALIZE);
    await server.waitForLine(byId(0));
    // The HTTP corpus's JSON-RPC bodies, renumbered, plus lines that are not JSON at all.
    const bodies = await Promise.all(handPicked.map((c) => c.request().text().catch(() => "")));
    const requests = bodies.flatMap((body) => {
      try {
        const message = JSON.parse(body);
        return typeof message === "object" && message !== null && !Array.isArray(message) &&
            message.method !== "initialize"
          ? [message]
          : [];
      } catch {
        return [];
      }
    });
    let id = 100;
    const sent: number[] = [];
    for (const message of requests) {
      if (!("id" in message)) continue;
      sent.push(++id);
      await server.send({ ...message, id });
    }
    for (
      const line of ["{not json", "[]", '"text"', "42", '{"jsonrpc":"2.0","id":77,"method":5}']
    ) {
      await server.sendRaw(line);
    }
    await server.send({ jsonrpc: "2.0", id: 9_999, method: "tools/list" });
    await server.waitForLine(byId(9_999));
    const answers = server.lines.map((line) => JSON.parse(line));
    const codes = answers.flatMap((a) => a.error ? [a.error.code] : []);
    assert.ok(sent.length >= 80, `only ${sent.length} requests`);
    assert.ok(!codes.includes(-32603), `an internal error among ${JSON.stringify(codes)}`);
    const missingName = answers.find((a) =>
      /tools\/call needs "name"/.test(a.error?.message ?? "")
    );
    assert.ok(missingName, "a tools/call without a name gets one readable sentence");
    assert.equal(missingName.error.code, -32602);
    assert.ok(server.child.pid > 0 && (await server.exited(10)) === undefined, "still running");
  } finally {
    await server.kill();
  }
});

/** Pids of processes whose environment holds `marker` (Linux's /proc). */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      if (Deno.readTextFileSync(`/proc/${entry.name}/environ`).includes(marker)) {
        pids.push(Number(entry.name));
      }
    } catch {
      // gone, or not ours
    }
  }
  return pids;
}

const hasProc = (() => {
  try {
    return Deno.statSync("/proc/self").isDirectory;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "launched through npx … task mcp:stdio, the whole process tree ends when the client goes",
  ignore: !hasProc,
  fn: async () => {
    for (const how of ["stdin closed", "SIGTERM, then pipes closed"]) {
      const marker = `marker-${crypto.randomUUID()}`;
      const server = spawnProcess(["--yes", "deno@2.9.6", "task", "--quiet", "mcp:stdio"], {
        command: "npx",
        env: { MCP_LOOP_DATA_DIR: await initializedDataDir(), MCP_LOOP_TEST_MARKER: marker },
      });
      try {
        await server.send(INITIALIZE);
        await server.waitForLine(byId(0));
        assert.ok(processesWith(marker).length >= 2, "npx, deno task and the server run");
        if (how !== "stdin closed") server.child.kill("SIGTERM");
        await server.closeStdin();
        await server.exited(START_TIMEOUT_MS);
        // The others are not this process's children: their ends can only be polled for.
        const deadline = Date.now() + START_TIMEOUT_MS;
        while (processesWith(marker).length > 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.deepEqual(processesWith(marker), [], `${how}: every process is gone`);
      } finally {
        await server.kill();
      }
    }
  },
});
