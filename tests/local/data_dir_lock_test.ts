import assert from "node:assert/strict";
import { acquireDataDirLock, lockHolder } from "../../shared/local/data_dir_lock.ts";
import { isAppError } from "../../shared/errors.ts";
import { tempDirRemovedAtExit } from "../support/process.ts";

Deno.test("a data folder's lock says who holds it, refuses a second holder, and is free once released", async () => {
  const dataDir = await tempDirRemovedAtExit("mcp-loop-lock-");
  assert.equal(lockHolder(dataDir), undefined);
  const lock = acquireDataDirLock(dataDir, { role: "http" });
  lock.setMcpUrl("http://127.0.0.1:8000/mcp-loop/mcp");
  // Another process: its lock request on the same file is refused while this one holds it.
  const probe = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { acquireDataDirLock } from "${new URL(
        "../../shared/local/data_dir_lock.ts",
        import.meta.url,
      )}";
       try { acquireDataDirLock(${
        JSON.stringify(dataDir)
      }, { role: "stdio" }); console.log("acquired"); }
       catch (error) { console.log(error.message); }`,
    ],
  });
  const refused = new TextDecoder().decode((await probe.output()).stdout);
  assert.match(refused, new RegExp(`is in use by process ${Deno.pid}, the HTTP server`));
  assert.match(refused, /connect to http:\/\/127\.0\.0\.1:8000\/mcp-loop\/mcp/);
  assert.deepEqual(
    { ...lockHolder(dataDir), startedAt: "" },
    { pid: Deno.pid, role: "http", mcpUrl: "http://127.0.0.1:8000/mcp-loop/mcp", startedAt: "" },
  );
  lock.release();
  assert.equal(lockHolder(dataDir), undefined);
  const again = new TextDecoder().decode((await probe.output()).stdout);
  assert.equal(again.trim(), "acquired");
});

Deno.test("a lock this process holds refuses this process too (one app per folder)", async () => {
  const dataDir = await tempDirRemovedAtExit("mcp-loop-lock-");
  const lock = acquireDataDirLock(dataDir, { role: "stdio" });
  try {
    assert.throws(
      () => acquireDataDirLock(dataDir, { role: "http" }),
      (error) => isAppError(error) && error.code === "DB_UNAVAILABLE",
    );
  } finally {
    lock.release();
  }
});
