/** A loop whose runs are persisted (in memory), with tools that count their calls. */
import { z } from "zod";
import type { Caller, Planner } from "../../shared/ports.ts";
import {
  type ApprovalMode,
  approvalRule,
  type TaintMode,
} from "../../shared/tools/approval_rule.ts";
import { RunEngine } from "../../shared/runs/engine.ts";
import { defineTool, type ToolDefinition } from "../../shared/tools/tool.ts";
import { MemoryAuditLog } from "../fakes/memory_audit_log.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { MemoryRunStore } from "../fakes/memory_run_store.ts";
import { MemoryApprovalStore } from "../fakes/memory_approval_store.ts";
import { buildLoop } from "./loop_fixture.ts";

/** Two callers that must never see each other's runs. */
export const ALICE: Caller = Object.freeze({ userId: null, owner: "key:alice" });
export const BOB: Caller = Object.freeze({ userId: null, owner: "key:bob" });

/** Tools: a read, a destructive write and a write that asks for approval above an amount. */
export function countedTools(calls: string[]): ToolDefinition[] {
  return [
    defineTool({
      name: "find_invoice",
      description: "Find an invoice",
      argsSchema: z.object({ number: z.string() }),
      outputSchema: z.object({ id: z.string(), amount: z.number() }),
      annotations: { readOnlyHint: true },
      run: ({ args }) => {
        calls.push(`find:${args.number}`);
        return { id: `inv-${args.number}`, amount: 120 };
      },
    }),
    defineTool({
      name: "delete_invoice",
      description: "Delete an invoice",
      argsSchema: z.object({ id: z.string() }),
      annotations: { destructiveHint: true },
      run: ({ args }) => {
        calls.push(`delete:${args.id}`);
        return { deleted: args.id };
      },
    }),
    defineTool({
      name: "pay",
      description: "Pay an amount",
      argsSchema: z.object({ amount: z.number() }),
      needsApproval: (args) => args.amount > 100,
      run: ({ args }) => {
        calls.push(`pay:${args.amount}`);
        return { paid: args.amount };
      },
    }),
  ];
}

/** A loop over `tools` with persisted runs. */
export function runsLoop(
  { planner, tools, approval = "destructive", tainted = "writes", ttlMs, deadlineMs, now }: {
    planner: Planner;
    tools: ToolDefinition[];
    approval?: ApprovalMode;
    tainted?: TaintMode;
    ttlMs?: number;
    deadlineMs?: number;
    now?: () => number;
  },
) {
  const runStore = new MemoryRunStore();
  const approvals = new MemoryApprovalStore();
  const audit = new MemoryAuditLog();
  const store = new MemoryConversationStore();
  const runs = new RunEngine({
    store: runStore,
    approvals,
    rule: approvalRule(approval, tainted),
    approvalTtlMs: ttlMs,
    audit,
    now,
  });
  const loop = buildLoop({
    planner,
    tools,
    store,
    options: deadlineMs ? { deadlineMs } : {},
    runs,
  });
  return { ...loop, runStore, approvals, audit, store, runs };
}
