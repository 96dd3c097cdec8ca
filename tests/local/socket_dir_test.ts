import assert from "node:assert/strict";
import {
  makeSocketDir,
  parentOf,
  SOCKET_NAME,
  sweepStaleSocketDirs,
} from "../../shared/local/socket_dir.ts";

/** The names of the folders in `parent`, sorted. */
async function namesIn(parent: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(parent)) names.push(entry.name);
  return names.sort();
}

/** Listens on `paths` in another process and kills it (SIGKILL): the sockets' files stay. */
async function killedListener(paths: string[]): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `for (const path of ${JSON.stringify(paths)}) Deno.listen({ transport: "unix", path });
       console.log("listening"); setInterval(() => {}, 1000);`,
    ],
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  assert.match(new TextDecoder().decode(value), /listening/);
  child.kill("SIGKILL");
  await child.status;
  reader.releaseLock();
  await child.stdout.cancel();
}

Deno.test("the sweep removes killed servers' socket folders and nothing else", async () => {
  const parent = await Deno.makeTempDir();
  try {
    // A server killed before its cleanup: the socket's file stays, no one listens.
    const stale = await makeSocketDir(parent);
    // A server that is listening, one that has not listened yet, and folders not ours.
    const live = await makeSocketDir(parent);
    const listening = Deno.listen({ transport: "unix", path: `${live}/${SOCKET_NAME}` });
    const starting = await makeSocketDir(parent);
    const crowded = await makeSocketDir(parent);
    await killedListener([stale, crowded].map((dir) => `${dir}/${SOCKET_NAME}`));
    // A server that could not listen and was killed before removing its folder, long ago.
    const empty = await makeSocketDir(parent);
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    await Deno.utime(empty, twoMinutesAgo, twoMinutesAgo);
    await Deno.writeTextFile(`${crowded}/notes.txt`, "someone's file");
    await Deno.mkdir(`${parent}/mcp-loop-data-export`);
    await Deno.mkdir(`${parent}/mcp-loop-tests`);
    await Deno.writeTextFile(`${parent}/mcp-loop-tests/${SOCKET_NAME}`, "a plain file");
    const notASocket = await makeSocketDir(parent);
    await Deno.writeTextFile(`${notASocket}/${SOCKET_NAME}`, "a plain file");

    assert.equal(parentOf(stale), parent);
    assert.equal(await sweepStaleSocketDirs(parent), 2);
    const left = [live, starting, crowded, notASocket].map((dir) => dir.slice(parent.length + 1));
    assert.deepEqual(
      await namesIn(parent),
      [...left, "mcp-loop-data-export", "mcp-loop-tests"].sort(),
    );
    listening.close(); // a server that stops cleanly removes its socket's file
    assert.equal(await sweepStaleSocketDirs(parent), 0);
    assert.equal(await sweepStaleSocketDirs(`${parent}/missing`), 0);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});
