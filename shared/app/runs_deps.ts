/**
 * How the app keeps runs: SQL on its database (unless given a store), live
 * events within the process, the approval policy and TTL from the settings,
 * and background work kept alive on the edge runtime.
 */
import type { Config } from "../config/config.ts";
import type { RunsDeps } from "../loop/run_part.ts";
import type { AuditLog, Sql } from "../ports.ts";
import type { ApprovalPolicy } from "../runs/approval_policy.ts";
import { RunEventHub, RunningRuns } from "../runs/run_events.ts";
import type { RunStore } from "../runs/run_store.ts";
import { keepAlive } from "../store/keep_alive.ts";
import { SqlRunStore } from "../store/sql_run_store.ts";

/** The runs part of the app. */
export function createRunsDeps(
  config: Config,
  { sql, audit, approval, store }: {
    sql: Sql;
    audit: AuditLog;
    approval: ApprovalPolicy;
    store?: RunStore;
  },
): RunsDeps {
  return {
    store: store ?? new SqlRunStore(sql),
    hub: new RunEventHub(),
    running: new RunningRuns(),
    approval,
    approvalTtlMs: config.runs.approvalTtlMs,
    audit,
    backgroundContinuations: config.runs.backgroundContinuations,
    keepAlive: (work) => {
      keepAlive(work);
      work.catch(() => {});
    },
  };
}
