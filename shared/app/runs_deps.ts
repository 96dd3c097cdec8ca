/**
 * The app's run engine: runs and approval records in SQL on its database
 * (unless given stores), the approval rule, TTL, retention and background
 * continuations from the settings, and background work kept alive by the
 * runtime (`EdgeRuntime.waitUntil` on the edge).
 */
import type { Config } from "../config/config.ts";
import type { AuditLog, Sql } from "../ports.ts";
import type { ApprovalStore } from "../runs/approval_store.ts";
import { RunEngine } from "../runs/engine.ts";
import type { RunStore } from "../runs/run_store.ts";
import type { ApprovalRule } from "../tools/approval_rule.ts";
import { SqlApprovalStore } from "../store/sql_approval_store.ts";
import { SqlRunStore } from "../store/sql_run_store.ts";

/** The run engine of the app. */
export function createRunEngine(
  config: Config,
  { sql, audit, rule, store, approvals, keepAlive }: {
    sql: Sql;
    audit: AuditLog;
    rule: ApprovalRule;
    store?: RunStore;
    approvals?: ApprovalStore;
    keepAlive: (work: Promise<unknown>) => void;
  },
): RunEngine {
  return new RunEngine({
    store: store ?? new SqlRunStore(sql),
    approvals: approvals ?? new SqlApprovalStore(sql),
    rule,
    approvalTtlMs: config.runs.approvalTtlMs,
    retentionMs: config.runs.retentionMs,
    audit,
    backgroundContinuations: config.runs.backgroundContinuations,
    keepAlive: (work) => {
      keepAlive(work);
      work.catch(() => {});
    },
  });
}
