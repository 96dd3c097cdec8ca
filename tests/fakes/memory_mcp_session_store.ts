/**
 * An in-memory `McpSessionStore` for tests, with the SQL store's semantics:
 * sessions per owner that lapse and are renewed past half their life, an
 * answer recorded once while its request waits and has not lapsed, a take
 * that removes what no longer waits (and, withdrawing, what still does), and
 * a session's end that removes its requests. The shared suite runs against it
 * and against PGlite, so it cannot drift.
 */
import type { Caller } from "../../shared/ports.ts";
import type {
  McpSessionRecord,
  McpSessionStore,
  SessionRequestKey,
  SessionRequestState,
} from "../../shared/store/mcp_session_port.ts";

interface StoredRequest {
  owner: string;
  relatedId?: string;
  status: "waiting" | "answered" | "cancelled";
  response?: Record<string, unknown>;
  expiresAt: Date;
}

const SESSION_ID = /^[A-Za-z0-9_-]{16,128}$/;

/** The fake; `sessions` and `requests` are public so tests can look. */
export class MemoryMcpSessionStore implements McpSessionStore {
  readonly sessions = new Map<string, McpSessionRecord & { owner: string }>();
  readonly requests = new Map<string, StoredRequest>();

  open(caller: Caller, session: McpSessionRecord): Promise<void> {
    if (!SESSION_ID.test(session.id)) return Promise.reject(new Error("bad session id"));
    if (this.sessions.has(session.id)) return Promise.reject(new Error("duplicate session id"));
    this.sessions.set(session.id, structuredClone({ ...session, owner: caller.owner }));
    return Promise.resolve();
  }

  find(
    caller: Caller,
    id: string,
    { now, renewTo }: { now: Date; renewTo: Date },
  ): Promise<McpSessionRecord | undefined> {
    const session = this.sessions.get(id);
    if (!session || session.owner !== caller.owner || session.expiresAt <= now) {
      return Promise.resolve(undefined);
    }
    const halfway = (now.getTime() + renewTo.getTime()) / 2;
    if (session.expiresAt.getTime() < halfway) session.expiresAt = new Date(renewTo.getTime());
    const { owner: _owner, ...record } = structuredClone(session);
    return Promise.resolve(record);
  }

  /** Removes a session and every request of it. */
  #drop(id: string): void {
    this.sessions.delete(id);
    for (const key of [...this.requests.keys()]) {
      if (key.startsWith(`${id}\0`)) this.requests.delete(key);
    }
  }

  end(caller: Caller, id: string): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session || session.owner !== caller.owner) return Promise.resolve(false);
    this.#drop(id);
    return Promise.resolve(true);
  }

  ask(
    caller: Caller,
    request: SessionRequestKey & { relatedId?: string; expiresAt: Date },
  ): Promise<void> {
    const session = this.sessions.get(request.sessionId);
    if (!session || session.owner !== caller.owner) {
      return Promise.reject(new Error("no such session of this caller"));
    }
    const key = keyOf(request);
    if (this.requests.has(key)) return Promise.reject(new Error("duplicate request id"));
    this.requests.set(key, {
      owner: caller.owner,
      ...(request.relatedId !== undefined ? { relatedId: request.relatedId } : {}),
      status: "waiting",
      expiresAt: new Date(request.expiresAt.getTime()),
    });
    return Promise.resolve();
  }

  answer(
    caller: Caller,
    request: SessionRequestKey & { response: Record<string, unknown>; now: Date },
  ): Promise<boolean> {
    const stored = this.requests.get(keyOf(request));
    if (
      !stored || stored.owner !== caller.owner || stored.status !== "waiting" ||
      stored.expiresAt <= request.now
    ) {
      return Promise.resolve(false);
    }
    stored.status = "answered";
    stored.response = structuredClone(request.response);
    return Promise.resolve(true);
  }

  cancel(
    caller: Caller,
    { sessionId, relatedId }: { sessionId: string; relatedId: string },
  ): Promise<number> {
    let cancelled = 0;
    for (const [key, stored] of this.requests) {
      if (
        key.startsWith(`${sessionId}\0`) && stored.owner === caller.owner &&
        stored.relatedId === relatedId && stored.status === "waiting"
      ) {
        stored.status = "cancelled";
        cancelled++;
      }
    }
    return Promise.resolve(cancelled);
  }

  take(
    caller: Caller,
    request: SessionRequestKey & { withdraw?: boolean },
  ): Promise<SessionRequestState> {
    const key = keyOf(request);
    const stored = this.requests.get(key);
    if (!stored || stored.owner !== caller.owner) return Promise.resolve({ kind: "gone" });
    if (stored.status !== "waiting" || request.withdraw) this.requests.delete(key);
    switch (stored.status) {
      case "answered":
        return Promise.resolve({ kind: "answered", response: stored.response! });
      case "cancelled":
        return Promise.resolve({ kind: "cancelled" });
      default:
        return Promise.resolve({ kind: "waiting" });
    }
  }

  sweep(now: Date, limit: number): Promise<number> {
    let removed = 0;
    let requests = 0;
    for (const [key, stored] of this.requests) {
      if (requests >= limit) break;
      if (stored.expiresAt < now) {
        this.requests.delete(key);
        requests++;
      }
    }
    for (const [id, session] of this.sessions) {
      if (removed >= limit) break;
      if (session.expiresAt < now) {
        this.#drop(id);
        removed++;
      }
    }
    return Promise.resolve(removed);
  }
}

function keyOf({ sessionId, requestId }: SessionRequestKey): string {
  return `${sessionId}\0${requestId}`;
}
