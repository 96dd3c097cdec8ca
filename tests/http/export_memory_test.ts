/**
 * `GET /mcp-loop/data` exports a history of more than 50 MB with bounded
 * memory: measured in a process of its own (tests/support/export_memory_child.ts),
 * the live JS heap grows by a fraction of what is exported and the resident set
 * by less than half of it, the body comes in many chunks, and the document is
 * whole. (Built as one value, the same export held all 59 MB in the heap and
 * grew the resident set by 278 MB.)
 */
import assert from "node:assert/strict";
import { lastJsonOfChild } from "../support/process.ts";

const MIB = 1024 * 1024;

Deno.test("GET /data streams a history of more than 50 MB with the process's memory bounded", async () => {
  const measured = await lastJsonOfChild([
    "run",
    "--allow-all",
    "--v8-flags=--expose-gc",
    "tests/support/export_memory_child.ts",
  ]) as {
    status: number;
    bytes: number;
    chunks: number;
    heapGrowth: number;
    rssGrowth: number;
    messages: number;
    toolCalls: number;
    longest: number;
  };
  const seen = JSON.stringify(measured);
  assert.equal(measured.status, 200);
  assert.ok(measured.bytes >= 50 * MIB, `exported ${measured.bytes} bytes: ${seen}`);
  assert.deepEqual([measured.messages, measured.toolCalls, measured.longest], [900, 900, 60_000]);
  assert.ok(measured.chunks >= 20, `one buffered body or few parts: ${seen}`);
  assert.ok(measured.heapGrowth < Math.min(16 * MIB, measured.bytes / 8), `live heap: ${seen}`);
  assert.ok(measured.rssGrowth < measured.bytes / 2, `resident set: ${seen}`);
});
