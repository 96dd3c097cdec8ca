/**
 * MCP sessions and the server's requests waiting on them, in Postgres
 * (`mcp_sessions`, `mcp_session_requests`), scoped to the caller's owner key
 * and, for signed-in users, by row level security. An answer is one
 * conditional update (`status = 'waiting'` and not lapsed), so it is recorded
 * once; the asker takes it with one statement that removes the row.
 */
import { AppError } from "../errors.ts";
import type { Caller, Sql } from "../ports.ts";
import type {
  McpSessionRecord,
  McpSessionStore,
  SessionRequestKey,
  SessionRequestState,
} from "./mcp_session_port.ts";
import { asCaller } from "./as_caller.ts";
import { toIso, toJsonb } from "./sql_values.ts";
import { parseDocument } from "./sql_conversation_store.ts";

/** The longest client response kept (a JSON-RPC response to an elicitation is far smaller). */
const MAX_RESPONSE_CHARS = 262_144;

interface SessionRow {
  id: string;
  protocol_version: string;
  client_capabilities: unknown;
  client_info: unknown;
  expires_at: unknown;
}

/** {@link McpSessionStore} over the `Sql` port. */
export class SqlMcpSessionStore implements McpSessionStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async open(caller: Caller, session: McpSessionRecord): Promise<void> {
    await asCaller(this.#sql, caller, (db) =>
      db.query(
        `insert into public.mcp_sessions
           (id, owner, protocol_version, client_capabilities, client_info, expires_at)
         values ($1, $2, $3, $4::jsonb, $5::jsonb, $6::timestamptz)`,
        [
          session.id,
          caller.owner,
          session.protocolVersion,
          toJsonb(session.capabilities),
          toJsonb(session.clientInfo),
          session.expiresAt.toISOString(),
        ],
      ));
  }

  async find(
    caller: Caller,
    id: string,
    { now, renewTo }: { now: Date; renewTo: Date },
  ): Promise<McpSessionRecord | undefined> {
    const halfway = new Date((now.getTime() + renewTo.getTime()) / 2);
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query<SessionRow>(
        `with live as (
           select id, protocol_version, client_capabilities, client_info, expires_at
           from public.mcp_sessions
           where id = $1 and owner = $2 and expires_at > $3::timestamptz
         ), renewed as (
           update public.mcp_sessions s set expires_at = $4::timestamptz
           from live where s.id = live.id and live.expires_at < $5::timestamptz
           returning s.expires_at
         )
         select live.id, live.protocol_version, live.client_capabilities, live.client_info,
                coalesce((select expires_at from renewed), live.expires_at) as expires_at
         from live`,
        [id, caller.owner, now.toISOString(), renewTo.toISOString(), halfway.toISOString()],
      ));
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      protocolVersion: row.protocol_version,
      capabilities: parseDocument(row.client_capabilities),
      clientInfo: parseDocument(row.client_info),
      expiresAt: new Date(toIso(row.expires_at)),
    };
  }

  async end(caller: Caller, id: string): Promise<boolean> {
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query(
        "delete from public.mcp_sessions where id = $1 and owner = $2 returning 1",
        [id, caller.owner],
      ));
    return rows.length > 0;
  }

  async ask(
    caller: Caller,
    request: SessionRequestKey & { relatedId?: string; expiresAt: Date },
  ): Promise<void> {
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query(
        `insert into public.mcp_session_requests
           (session_id, request_id, owner, related_id, expires_at)
         select s.id, $2, $3, $4, $5::timestamptz from public.mcp_sessions s
         where s.id = $1 and s.owner = $3
         returning 1`,
        [
          request.sessionId,
          request.requestId,
          caller.owner,
          request.relatedId ?? null,
          request.expiresAt.toISOString(),
        ],
      ));
    if (rows.length === 0) {
      throw new AppError(
        "NOT_FOUND",
        "The MCP session ended before the server could ask the client; start a new session",
      );
    }
  }

  async answer(
    caller: Caller,
    request: SessionRequestKey & { response: Record<string, unknown>; now: Date },
  ): Promise<boolean> {
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query(
        `update public.mcp_session_requests
         set status = 'answered', response = $4::jsonb, answered_at = $5::timestamptz
         where session_id = $1 and request_id = $2 and owner = $3
           and status = 'waiting' and expires_at > $5::timestamptz
         returning 1`,
        [
          request.sessionId,
          request.requestId,
          caller.owner,
          toJsonb(request.response, MAX_RESPONSE_CHARS),
          request.now.toISOString(),
        ],
      ));
    return rows.length > 0;
  }

  async cancel(
    caller: Caller,
    { sessionId, relatedId }: { sessionId: string; relatedId: string },
  ): Promise<number> {
    const rows = await asCaller(this.#sql, caller, (db) =>
      db.query(
        `update public.mcp_session_requests set status = 'cancelled'
         where session_id = $1 and related_id = $2 and owner = $3 and status = 'waiting'
         returning 1`,
        [sessionId, relatedId, caller.owner],
      ));
    return rows.length;
  }

  async take(
    caller: Caller,
    { sessionId, requestId, withdraw = false }: SessionRequestKey & { withdraw?: boolean },
  ): Promise<SessionRequestState> {
    // Both parts see one snapshot; the delete returns the row as it was when removed, so an
    // answer that lands while the asker withdraws is still returned, not lost.
    const rows = await asCaller(
      this.#sql,
      caller,
      (db) =>
        db.query<{ status: string; response: unknown }>(
          `with found as (
           select status, response from public.mcp_session_requests
           where session_id = $1 and request_id = $2 and owner = $3
         ), taken as (
           delete from public.mcp_session_requests
           where session_id = $1 and request_id = $2 and owner = $3
             and (status <> 'waiting' or $4::boolean)
           returning status, response
         )
         select coalesce(t.status, f.status) as status, coalesce(t.response, f.response) as response
         from found f left join taken t on true`,
          [sessionId, requestId, caller.owner, withdraw],
        ),
    );
    const row = rows[0];
    if (!row) return { kind: "gone" };
    switch (row.status) {
      case "answered":
        return { kind: "answered", response: parseDocument(row.response) };
      case "cancelled":
        return { kind: "cancelled" };
      default:
        return { kind: "waiting" };
    }
  }

  async sweep(now: Date, limit: number): Promise<number> {
    // The server's own role: a sweep removes anyone's lapsed sessions.
    const [row] = await this.#sql.query<{ removed: number }>(
      "select public.sweep_mcp_sessions($1::timestamptz, $2) as removed",
      [now.toISOString(), limit],
    );
    return Number(row?.removed ?? 0);
  }
}
