import assert from "node:assert/strict";
import { bufferedSink } from "../../shared/log/line_writer.ts";

Deno.test("queued lines go out together, each on its own line, in order", async () => {
  const writes: string[] = [];
  const sink = bufferedSink({ out: (text) => writes.push(text), urgent: () => {}, delayMs: 1 });
  sink.write('{"n":1}', "info");
  sink.write('{"n":2}', "debug");
  assert.deepEqual(writes, [], "nothing is written on the request's path");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(writes, ['{"n":1}\n{"n":2}\n']);
});

Deno.test("a warning or error flushes the queue first and goes out at once", () => {
  const order: string[] = [];
  const sink = bufferedSink({
    out: (text) => order.push(`out:${text.trim().replace("\n", "|")}`),
    urgent: (line, level) => order.push(`${level}:${line}`),
    delayMs: 1_000,
  });
  sink.write("a", "info");
  sink.write("b", "info");
  sink.write("oops", "error");
  assert.deepEqual(order, ["out:a|b", "error:oops"]);
  sink.flush();
  assert.equal(order.length, 2, "an empty queue writes nothing");
});

Deno.test("a full queue is written without waiting", () => {
  const writes: string[] = [];
  const sink = bufferedSink({ out: (t) => writes.push(t), urgent: () => {}, maxLines: 3 });
  for (const line of ["1", "2", "3"]) sink.write(line, "info");
  assert.deepEqual(writes, ["1\n2\n3\n"]);
});
