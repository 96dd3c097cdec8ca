/** An in-memory `AuditLog` for tests: `rows` holds every recorded event with its caller. */
import type { AuditEvent, AuditLog, Caller } from "../../shared/ports.ts";

/** The fake. */
export class MemoryAuditLog implements AuditLog {
  readonly rows: (AuditEvent & { caller: string })[] = [];

  record(caller: Caller, events: AuditEvent[]): Promise<void> {
    for (const event of events) this.rows.push({ ...event, caller: caller.owner });
    return Promise.resolve();
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }
}
