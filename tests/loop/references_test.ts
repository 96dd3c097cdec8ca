import assert from "node:assert/strict";
import type { ActionResult } from "../../shared/contracts.ts";
import {
  findReferences,
  parsePointer,
  referenceProblems,
  resolveReferences,
} from "../../shared/loop/references.ts";

const ok = (tool: string, output: unknown): ActionResult => ({
  tool,
  input: {},
  output,
  success: true,
  durationMs: 1,
});

Deno.test("findReferences finds {$ref} values at any depth, and only those into /steps/", () => {
  const refs = findReferences({
    loop_id: { $ref: "/steps/0/output/id" },
    items: [1, { $ref: "/steps/1/output" }],
    schema: { $ref: "#/definitions/x" }, // a JSON Schema's own $ref stays data
    extra: { $ref: "/steps/0/output", note: "two keys: not a reference" },
  });
  assert.deepEqual(refs, [
    { at: ["loop_id"], pointer: "/steps/0/output/id" },
    { at: ["items", 1], pointer: "/steps/1/output" },
  ]);
});

Deno.test("pointers follow RFC 6901: ~1 is / and ~0 is ~, other escapes are refused", () => {
  assert.deepEqual(parsePointer("/steps/2/output/a~1b/c~0d/0"), {
    step: 2,
    path: ["a/b", "c~d", "0"],
  });
  assert.deepEqual(parsePointer("/steps/0/output"), { step: 0, path: [] });
  assert.match(String(parsePointer("/steps/0/output/a~2")), /bad escape.*"~0".*"~1"/);
  assert.match(String(parsePointer("/steps/x/output")), /is not a step reference/);
  assert.match(String(parsePointer("/steps/01/output")), /is not a step reference/);
  assert.match(String(parsePointer("/steps/0/input/id")), /\/steps\/<n>\/output/);
});

Deno.test("a reference to the same or a later step is a problem naming the steps it may use", () => {
  const refs = findReferences({ a: { $ref: "/steps/3/output" }, b: { $ref: "/steps/1/output" } });
  assert.deepEqual(referenceProblems(refs, 3), [
    [["a"], "step 3 cannot reference step 3 (not an earlier step); reference one of steps 0 to 2"],
  ]);
  const first = referenceProblems(findReferences({ a: { $ref: "/steps/0/output" } }), 0);
  assert.match(first[0][1], /the first step has no earlier step/);
});

Deno.test("resolving replaces each reference by the value it points at, without touching the plan", () => {
  const args = { loop_id: { $ref: "/steps/0/output/id" }, tags: [{ $ref: "/steps/1/output/0" }] };
  const results = [ok("start", { id: "ab12cd34" }), ok("tags", ["x", "y"])];
  assert.deepEqual(resolveReferences(args, results), {
    ok: true,
    args: { loop_id: "ab12cd34", tags: ["x"] },
  });
  assert.deepEqual(args.loop_id, { $ref: "/steps/0/output/id" });
  // The whole output, and a null inside it, are values too.
  assert.deepEqual(
    resolveReferences({ all: { $ref: "/steps/0/output" } }, [ok("t", { v: null })]),
    {
      ok: true,
      args: { all: { v: null } },
    },
  );
});

Deno.test("a reference to a failed step is DEPENDENCY_FAILED; to nothing, TOOL_ARGS_INVALID", () => {
  const failed: ActionResult = { ...ok("start", null), success: false, error: "boom" };
  const dependency = resolveReferences({ id: { $ref: "/steps/0/output/id" } }, [failed]);
  assert.equal(dependency.ok, false);
  assert.equal(!dependency.ok && dependency.code, "DEPENDENCY_FAILED");
  assert.match(!dependency.ok ? dependency.error : "", /step 0 \(start\), which failed/);

  const missing = resolveReferences({ id: { $ref: "/steps/0/output/idx" } }, [ok("start", {})]);
  assert.equal(!missing.ok && missing.code, "TOOL_ARGS_INVALID");
  assert.match(!missing.ok ? missing.error : "", /points at nothing in step 0's output/);

  // Arrays take decimal indexes only; objects only their own keys.
  const proto = resolveReferences({ x: { $ref: "/steps/0/output/constructor" } }, [ok("t", {})]);
  assert.equal(proto.ok, false);
  const index = resolveReferences({ x: { $ref: "/steps/0/output/01" } }, [ok("t", [1, 2])]);
  assert.equal(index.ok, false);
});
