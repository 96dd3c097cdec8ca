/**
 * The client's plain wire types (`shared/client/types.ts`, copied into the
 * bundled client's `.d.ts`) are the contract's types (`shared/contracts.ts`):
 * requests as Zod accepts them (`z.input`), responses and events as the
 * server sends them (`z.output`). The checks are types, so a contract changed
 * without the client's types fails `deno task check` and `deno test`.
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import type * as contract from "../../shared/contracts.ts";
import type * as client from "../../shared/client/types.ts";

/**
 * True when A and B are the same type, optional and readonly keys included:
 * mutual assignability alone would miss an optional field added on one side.
 */
type Same<A, B> = (<T>() => T extends Normal<A> ? 1 : 2) extends
  (<T>() => T extends Normal<B> ? 1 : 2) ? true : false;

/** Interfaces, intersections and Zod's inferred objects as one plain shape, recursively. */
type Normal<T> = T extends (...args: never[]) => unknown ? T
  : T extends readonly (infer E)[] ? Normal<E>[]
  : T extends object ? { [K in keyof T]: Normal<T[K]> }
  : T;

/** Compiles only when its argument is `true`. */
function same<_ extends true>(): true {
  return true;
}

type Data = z.output<typeof contract.MCPResponse>["data"];
type Event<E, K> = Extract<E, { type: K }>;

Deno.test("the client's request types are what the contract accepts", () => {
  assert.ok(same<Same<client.LoopRequest, z.input<typeof contract.MCPRequest>>>());
  assert.ok(same<Same<client.ChatMessage, z.input<typeof contract.ChatMessage>>>());
  assert.ok(same<Same<client.ToolMetadata, z.input<typeof contract.ToolMetadata>>>());
  assert.ok(same<Same<client.RefinementRequest, z.input<typeof contract.RefinementRequest>>>());
  assert.ok(same<Same<client.Mode, contract.Mode>>());
  assert.ok(same<Same<client.ChatRole, contract.ChatRole>>());
  assert.ok(same<Same<client.LoopTypeName, contract.LoopTypeName>>());
});

Deno.test("the client's response types are what the server sends", () => {
  assert.ok(same<Same<client.LoopResult, Data>>());
  assert.ok(same<Same<client.ReportedAction, Data["plan"][number]>>());
  assert.ok(same<Same<client.PlannedAction, contract.PlannedAction>>());
  assert.ok(same<Same<client.ActionResult, contract.ActionResult>>());
  assert.ok(same<Same<client.StopReason, contract.StopReason>>());
  assert.ok(same<Same<client.Usage, contract.Usage>>());
  assert.ok(same<Same<client.LoopOutput, contract.LoopOutput>>());
  assert.ok(same<Same<client.ServerError, contract.ErrorBody["error"]>>());
  assert.ok(same<Same<client.LoopResponse, z.output<typeof contract.MCPResponse>>>());
  assert.ok(same<Same<client.ErrorBody, z.output<typeof contract.ErrorBody>>>());
});

Deno.test("the client's stream events are the server's, variant by variant", () => {
  assert.ok(same<Same<client.LoopEvent, contract.LoopEvent>>());
  assert.ok(same<Same<client.ContextMessage, contract.ContextMessage>>());
  assert.ok(same<Same<client.LoopEvent["type"], contract.LoopEvent["type"]>>());
  assert.ok(same<Same<Event<client.StreamEvent, "result">["data"], Data>>());
  assert.ok(same<Same<Event<client.StreamEvent, "error">["error"], contract.ErrorBody["error"]>>());
});

Deno.test("the client's run types are what the run routes accept and answer", () => {
  assert.ok(same<Same<client.RunView, contract.RunView>>());
  assert.ok(same<Same<client.RunStatus, contract.RunStatus>>());
  assert.ok(same<Same<client.PendingApproval, contract.PendingApproval>>());
  assert.ok(same<Same<client.ApprovalDecision, z.input<typeof contract.ApprovalDecision>>>());
  assert.ok(
    same<Same<client.ApprovalDecision[], z.input<typeof contract.ApprovalsBody>["approvals"]>>(),
  );
});

Deno.test("the type check tells apart an optional field present on one side only", () => {
  // Mutually assignable, yet not the same: the drift these checks exist to catch.
  // @ts-expect-error `b` is on one side only
  assert.ok(same<Same<{ a: string; b?: number }, { a: string }>>());
  // @ts-expect-error `a` is optional on one side only
  assert.ok(same<Same<{ a?: string }, { a: string }>>());
  // @ts-expect-error the events differ in one variant's field
  assert.ok(same<Same<{ type: "x"; n: number } | { type: "y" }, { type: "x" } | { type: "y" }>>());
  assert.ok(same<Same<{ a: string } & { b?: number }, { a: string; b?: number }>>());
});
