/**
 * Audit rows as the server writes them: through `write_mcp_events`, which only
 * the server's own role may execute (never `anon` or `authenticated`, so nothing
 * PostgREST exposes can write one), with the identity the server verified — the
 * caller's user id and owner key — rather than one the database reads from the
 * request.
 */
import type { AuditEvent, Caller, SqlQueryable } from "../ports.ts";
import { databaseError } from "./as_caller.ts";
import { toJsonb, toSafeText } from "./sql_values.ts";

/** The statement; its parameters come from {@link auditParams}. */
const WRITE_AUDIT_ROWS = "select public.write_mcp_events($1::uuid, $2, $3, $4, $5::jsonb)";

/** Where a batch of audit rows comes from. */
export interface AuditOrigin {
  source: AuditEvent["source"];
  sessionId?: string;
}

/** The parameters of {@link WRITE_AUDIT_ROWS} for `events` (JSON objects of {@link eventToJson}). */
export function auditParams(
  caller: Caller,
  { source, sessionId }: AuditOrigin,
  events: readonly string[],
): unknown[] {
  return [
    caller.userId,
    caller.owner,
    source,
    sessionId === undefined ? null : toSafeText(sessionId),
    `[${events.join(",")}]`,
  ];
}

/** Writes `events` of one origin as the server; database failures as DB_UNAVAILABLE. */
export async function writeAuditRows(
  db: SqlQueryable,
  caller: Caller,
  origin: AuditOrigin,
  events: readonly AuditEvent[],
): Promise<void> {
  if (events.length === 0) return;
  try {
    await db.query(WRITE_AUDIT_ROWS, auditParams(caller, origin, events.map(eventToJson)));
  } catch (error) {
    throw databaseError(error);
  }
}

/** One audit event as the JSON object `write_mcp_events` reads. */
export function eventToJson(event: AuditEvent): string {
  // The tool name too: a planner or a client may name a tool that does not exist, with any text.
  return `{"request_id":${toJsonb(event.requestId ?? null)},"tool":${toJsonb(event.tool, 200)},` +
    `"input":${toJsonb(event.input)},"output":${toJsonb(event.output)},` +
    `"success":${event.success},"error":${toJsonb(event.error ?? null)},` +
    `"duration_ms":${Number.isFinite(event.durationMs) ? event.durationMs : 0},` +
    `"run_id":${toJsonb(event.runId ?? null)}}`;
}
