/**
 * `deno task start` as a person runs it: on 127.0.0.1 with its URLs printed,
 * health answering while PGlite starts, one owner per data folder, and
 * `mcp:stdio` bridging to the server that owns the folder.
 */
import assert from "node:assert/strict";
import { lockHolder } from "../../shared/local/data_dir_lock.ts";
import { cannotListenMessage, stopOnce } from "../../shared/local/serve_local.ts";
import {
  freePort,
  INITIALIZE,
  initializedDataDir,
  spawnProcess,
  START_TIMEOUT_MS,
  tempDirRemovedAtExit,
  untilReady,
} from "../support/process.ts";
import { testApp } from "../support/test_app.ts";

const start = (env: Record<string, string>) =>
  spawnProcess(["task", "--quiet", "start"], { env: { MCP_LOOP_LOG_LEVEL: "info", ...env } });

Deno.test("deno task start listens on 127.0.0.1 only, prints its URLs, and health answers while PGlite starts", async () => {
  const port = freePort();
  const dataDir = await tempDirRemovedAtExit("mcp-loop-fresh-");
  const server = start({ PORT: String(port), MCP_LOOP_DATA_DIR: dataDir });
  try {
    await server.waitForLine((line) => line.includes("/mcp-loop/playground"));
    const printed = server.lines.join("\n");
    assert.match(printed, /listening on 127\.0\.0\.1:\d+ \(this machine only\)/);
    for (const path of ["/mcp-loop", "/mcp-loop/mcp", "/mcp-loop/health", "/mcp-loop/playground"]) {
      assert.ok(printed.includes(`http://127.0.0.1:${port}${path}`), path);
    }
    // A fresh folder takes seconds to initialise: health says so instead of waiting for it.
    const early = await fetch(`http://127.0.0.1:${port}/mcp-loop/health`);
    const body = await early.json();
    const databaseReady = server.lines.some((line) => line.includes('"database ready"'));
    if (!databaseReady) assert.equal(early.status, 503, "health answered before the database");
    if (early.status === 503) assert.equal(body.starting, true);
    await untilReady(server);
    // Not reachable on the machine's other addresses.
    const others = Deno.networkInterfaces().filter((i) =>
      i.family === "IPv4" && !i.address.startsWith("127.")
    );
    for (const { address } of others) {
      await assert.rejects(
        fetch(`http://${address}:${port}/mcp-loop/health`, { signal: AbortSignal.timeout(2_000) }),
        `reachable on ${address}`,
      );
    }
  } finally {
    server.child.kill("SIGTERM");
    assert.equal((await server.exited(START_TIMEOUT_MS))?.code, 0);
    await server.kill();
  }
});

Deno.test("one owner per data folder: a second server stops naming the folder, the holder and the URL; mcp:stdio bridges", async () => {
  const port = freePort();
  const dataDir = await initializedDataDir();
  const first = start({ PORT: String(port), MCP_LOOP_DATA_DIR: dataDir });
  const mcpUrl = `http://127.0.0.1:${port}/mcp-loop/mcp`;
  try {
    await untilReady(first);
    const second = start({ PORT: String(freePort()), MCP_LOOP_DATA_DIR: dataDir });
    const status = await second.exited(START_TIMEOUT_MS);
    await second.kill();
    assert.equal(status?.code, 1);
    const message = second.stderr();
    // The holder is the server itself (deno task runs it as its child).
    const holder = lockHolder(dataDir)!;
    assert.equal(holder.role, "http");
    assert.match(
      message,
      new RegExp(`MCP_LOOP_DATA_DIR ${dataDir} is in use by process ${holder.pid}`),
    );
    assert.ok(message.includes(`serving MCP at ${mcpUrl}`), message);

    // A desktop client's stdio server on the same folder shares the server's memory.
    const desktop = spawnProcess(["task", "--quiet", "mcp:stdio"], {
      env: { MCP_LOOP_DATA_DIR: dataDir },
    });
    try {
      await desktop.send(INITIALIZE);
      await desktop.waitForLine((line) => JSON.parse(line).id === 0);
      await desktop.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "initialize_refinement_loop", arguments: { loop_type: "spec" } },
      });
      const created = JSON.parse(await desktop.waitForLine((line) => JSON.parse(line).id === 1));
      const id = created.result.structuredContent.id;
      const read = await fetch(mcpUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "get_loop_status", arguments: { loop_id: id } },
        }),
      });
      assert.equal((await read.json()).result.structuredContent.id, id);
      await desktop.closeStdin();
      assert.equal((await desktop.exited(START_TIMEOUT_MS))?.code, 0);
    } finally {
      await desktop.kill();
    }
  } finally {
    first.child.kill("SIGTERM");
    await first.exited(START_TIMEOUT_MS);
    await first.kill();
  }
});

Deno.test("a lock left by a process that is gone is taken over", async () => {
  const dataDir = await initializedDataDir();
  // What a killed server leaves behind: the file, with nobody holding its lock.
  await Deno.writeTextFile(
    `${dataDir}/mcp-loop.lock`,
    JSON.stringify({ pid: 2 ** 30, role: "http", startedAt: "2026-01-01T00:00:00Z" }),
  );
  const port = freePort();
  const server = start({ PORT: String(port), MCP_LOOP_DATA_DIR: dataDir });
  try {
    await untilReady(server);
    const lock = JSON.parse(await Deno.readTextFile(`${dataDir}/mcp-loop.lock`));
    assert.equal(lock.pid !== 2 ** 30, true);
    assert.equal(lock.mcpUrl, `http://127.0.0.1:${port}/mcp-loop/mcp`);
  } finally {
    server.child.kill("SIGTERM");
    await server.exited(START_TIMEOUT_MS);
    await server.kill();
  }
});

const SETSID = ["/usr/bin/setsid", "/bin/setsid"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

/**
 * `deno task start` in its own process group, as a terminal runs it: Ctrl-C
 * signals the whole group (`deno task` and the server), so the server gets
 * the signal twice, often while its database is still opening.
 */
async function ctrlC(gapsMs: number[]) {
  const port = freePort();
  const server = spawnProcess([Deno.execPath(), "task", "--quiet", "start"], {
    command: SETSID,
    env: { PORT: String(port), MCP_LOOP_DATA_DIR: await initializedDataDir(), NO_COLOR: "1" },
  });
  try {
    await server.waitForLine((line) => line.includes("listening on"));
    Deno.kill(-server.child.pid, "SIGINT");
    for (const gap of gapsMs) {
      await new Promise((resolve) => setTimeout(resolve, gap));
      try {
        Deno.kill(-server.child.pid, "SIGINT");
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error; // it had stopped already
      }
    }
    return { status: await server.exited(START_TIMEOUT_MS), stderr: server.stderr() };
  } finally {
    await server.kill();
  }
}

Deno.test({
  name:
    "Ctrl-C stops deno task start cleanly, once or twice, while the database opens: exit 0, no uncaught error",
  ignore: !SETSID,
  fn: async () => {
    for (const gaps of [[], [20]]) {
      const { status, stderr } = await ctrlC(gaps);
      assert.equal(
        status?.code,
        0,
        `${gaps.length + 1} signal(s): exit ${status?.code}\n${stderr}`,
      );
      assert.doesNotMatch(stderr, /Uncaught|error:|PGlite is closing/i);
    }
  },
});
if (!SETSID) console.warn("serve_http_test: no setsid on this machine; the Ctrl-C test is skipped");

Deno.test("a port in use stops start-up with one line naming the port and what to do", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = taken.addr as Deno.NetAddr;
  try {
    const server = start({
      PORT: String(port),
      MCP_LOOP_DATA_DIR: await initializedDataDir(),
      NO_COLOR: "1",
    });
    const status = await server.exited(START_TIMEOUT_MS);
    await server.kill();
    assert.equal(status?.code, 1);
    const message = server.stderr().trim();
    assert.equal(message.split("\n").length, 1, message);
    assert.equal(
      message,
      `Port ${port} on 127.0.0.1 is already in use by another program: stop it, or set PORT to a free port (PORT=${
        port + 1
      } deno task start).`,
    );
  } finally {
    taken.close();
  }
});

Deno.test("a port held by another mcp-loop is named as such, with its MCP endpoint", async () => {
  const { app } = testApp();
  const other = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  const { port } = other.addr as Deno.NetAddr;
  try {
    assert.equal(
      await cannotListenMessage(new Deno.errors.AddrInUse("in use"), "127.0.0.1", port),
      `Port ${port} on 127.0.0.1 is already in use by another mcp-loop server (MCP at http://127.0.0.1:${port}/mcp-loop/mcp): stop it, or set PORT to a free port (PORT=${
        port + 1
      } deno task start).`,
    );
  } finally {
    await other.shutdown();
  }
});

Deno.test("stopping runs once however many signals ask, and says so when it fails", async () => {
  let stops = 0;
  const stop = stopOnce(async () => {
    stops++;
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
  assert.deepEqual(await Promise.all([stop(), stop(), stop()]), [0, 0, 0]);
  assert.equal(stops, 1);
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args.join(" "));
  try {
    const failing = stopOnce(() => Promise.reject(new Error("PGlite is closing")));
    assert.deepEqual(await Promise.all([failing(), failing()]), [1, 1]);
  } finally {
    console.error = original;
  }
  assert.deepEqual(errors, ["mcp-loop could not stop cleanly: PGlite is closing"]);
});
