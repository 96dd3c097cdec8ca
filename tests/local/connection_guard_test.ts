/**
 * The server `deno task start` runs, under connection abuse: a connection that
 * never finishes its headers is answered 408 and closed; past the cap new
 * connections are refused with 503 while the open ones keep being served; and
 * out of file descriptors it refuses connections, then recovers — it never exits.
 */
import assert from "node:assert/strict";
import {
  freePort,
  initializedDataDir,
  SERVE_WITH_OPTIONS_ARGS,
  serveOptionsEnv,
  spawnProcess,
  START_TIMEOUT_MS,
  untilReady,
} from "../support/process.ts";

const SERVE = [...SERVE_WITH_OPTIONS_ARGS];

async function start(env: Record<string, string>, { fdLimit }: { fdLimit?: number } = {}) {
  const env2 = {
    MCP_LOOP_DATA_DIR: await initializedDataDir(),
    MCP_LOOP_LOG_LEVEL: "info",
    ...env,
  };
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

/**
 * What the server writes before closing `conn`, or undefined when it keeps it open for `ms`
 * (a bound for a broken server, not a measure of speed).
 */
async function answerOf(conn: Deno.Conn, ms = START_TIMEOUT_MS): Promise<string | undefined> {
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
  const server = await start({
    PORT: String(port),
    ...serveOptionsEnv({ connections: { headerTimeoutMs: 2_000, maxConnections: 4 } }),
  });
  const conns: Deno.Conn[] = [];
  try {
    await untilReady(server);
    const slow = await slowConnection(port);
    conns.push(slow);
    assert.match((await answerOf(slow)) ?? "(still open)", /^HTTP\/1\.1 408/);

    // Four connections hold the cap (each is accepted before the next connects); a fifth is refused.
    const holding: Deno.Conn[] = [];
    for (let i = 0; i < 4; i++) holding.push(await slowConnection(port));
    conns.push(...holding);
    const extra = await slowConnection(port);
    conns.push(extra);
    assert.match(
      (await answerOf(extra)) ?? "(still open)",
      /^HTTP\/1\.1 503[\s\S]*retry-after: 1/i,
    );
    // Once the slow ones are timed out, the server serves again.
    for (const conn of holding) {
      assert.match((await answerOf(conn)) ?? "(still open)", /^HTTP\/1\.1 408/);
    }
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
  const server = await start({
    PORT: String(port),
    ...serveOptionsEnv({ connections: { maxConnections: 10_000, headerTimeoutMs: 3_000 } }),
  }, { fdLimit: 128 });
  const conns: Deno.Conn[] = [];
  try {
    await untilReady(server);
    // It lowered its cap to what its descriptors allow.
    await server.waitForStderr(/the connection cap is lowered/);
    // More connections than the server has descriptors for.
    for (let i = 0; i < 150; i++) {
      try {
        conns.push(await slowConnection(port));
      } catch {
        break;
      }
    }
    // It refuses past the cap, and every connection it took is answered 408 at its header timeout:
    // every one of them ends with an answer, and the server is still running.
    const answers = await Promise.all(conns.map((conn) => answerOf(conn)));
    assert.match(answers.at(-1) ?? "(still open)", /^HTTP\/1\.1 503/);
    assert.ok(
      answers.every((answer) => /^HTTP\/1\.1 (408|503)/.test(answer ?? "")),
      "all answered",
    );
    assert.equal(await server.exited(100), undefined, "the server is still running");
    // Descriptors free again: it answers.
    const res = await fetch(`http://127.0.0.1:${port}/mcp-loop/health`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
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
