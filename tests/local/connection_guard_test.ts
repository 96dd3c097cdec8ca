/**
 * The server `deno task start` runs, under connection abuse: a connection that
 * never finishes its headers is answered 408 and closed; past the cap new
 * connections are refused with 503 while the open ones keep being served; and
 * out of file descriptors it refuses connections, then recovers — it never exits.
 */
import assert from "node:assert/strict";
import {
  freePort,
  SERVE_WITH_OPTIONS_ARGS,
  serveOptionsEnv,
  spawnProcess,
  waitUntilOk,
} from "../support/process.ts";

const SERVE = [...SERVE_WITH_OPTIONS_ARGS];

function start(env: Record<string, string>, { fdLimit }: { fdLimit?: number } = {}) {
  const env2 = { MCP_LOOP_DATA_DIR: "memory://", ...env };
  if (fdLimit === undefined) return spawnProcess(SERVE, { env: env2 });
  // `exec` keeps the server as the shell's process: the limit and SIGKILL reach it.
  return spawnProcess([
    "-c",
    `ulimit -n ${fdLimit} && exec "${Deno.execPath()}" ${SERVE.join(" ")}`,
  ], {
    command: "bash",
    env: env2,
  });
}

/** Opens a connection and sends a request line and one header, never the blank line. */
async function slowConnection(port: number): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode("GET /mcp-loop/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"),
  );
  return conn;
}

/** What the server writes before closing `conn` (within `ms`), or undefined when it keeps it open. */
async function answerOf(conn: Deno.Conn, ms: number): Promise<string | undefined> {
  const buffer = new Uint8Array(512);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const result = await Promise.race([
    conn.read(buffer).then((n) => n === null ? "" : new TextDecoder().decode(buffer.subarray(0, n)))
      .catch(() => ""),
    new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), ms)),
  ]);
  clearTimeout(timer);
  return result;
}

Deno.test("headers that never end get 408 and the connection closed; past the cap, 503 while others are served", async () => {
  const port = freePort();
  const server = start({
    PORT: String(port),
    ...serveOptionsEnv({ connections: { headerTimeoutMs: 500, maxConnections: 4 } }),
  });
  const conns: Deno.Conn[] = [];
  try {
    await waitUntilOk(`http://127.0.0.1:${port}/mcp-loop/health`, 30_000);
    const slow = await slowConnection(port);
    conns.push(slow);
    const started = performance.now();
    const answer = await answerOf(slow, 5_000);
    assert.match(answer ?? "(still open)", /^HTTP\/1\.1 408/);
    assert.ok(performance.now() - started < 3_000);

    for (let i = 0; i < 4; i++) conns.push(await slowConnection(port));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const extra = await slowConnection(port);
    conns.push(extra);
    assert.match(
      (await answerOf(extra, 2_000)) ?? "(still open)",
      /^HTTP\/1\.1 503[\s\S]*retry-after: 1/i,
    );
    // Once the slow ones are timed out, the server serves again.
    await new Promise((resolve) => setTimeout(resolve, 800));
    const res = await fetch(`http://127.0.0.1:${port}/mcp-loop/health`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  } finally {
    for (const conn of conns) {
      try {
        conn.close();
      } catch {
        // closed by the server
      }
    }
    await server.kill();
  }
});

Deno.test("out of file descriptors the server refuses connections and recovers; it never exits", async () => {
  const port = freePort();
  const server = start({
    PORT: String(port),
    ...serveOptionsEnv({ connections: { maxConnections: 10_000 } }),
  }, { fdLimit: 128 });
  const conns: Deno.Conn[] = [];
  try {
    await waitUntilOk(`http://127.0.0.1:${port}/mcp-loop/health`, 30_000);
    // More connections than the server has descriptors for.
    for (let i = 0; i < 150; i++) {
      try {
        conns.push(await slowConnection(port));
      } catch {
        break;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(await server.exited(100), undefined, "the server is still running");
    // It lowered its cap to what its descriptors allow, and refuses past it.
    assert.match(server.stderr(), /the connection cap is lowered/);
    assert.match((await answerOf(conns.at(-1)!, 2_000)) ?? "(still open)", /^HTTP\/1\.1 503/);
    for (const conn of conns.splice(0)) {
      try {
        conn.close();
      } catch {
        // closed
      }
    }
    // Descriptors free again: it answers.
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/mcp-loop/health`, {
          signal: AbortSignal.timeout(2_000),
        });
        status = res.status;
        await res.body?.cancel();
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    assert.equal(status, 200);
    assert.equal(await server.exited(100), undefined);
    assert.doesNotMatch(server.stderr(), /Uncaught/);
  } finally {
    for (const conn of conns) {
      try {
        conn.close();
      } catch {
        // closed
      }
    }
    await server.kill();
  }
});
