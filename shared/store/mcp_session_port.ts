/**
 * Where the sessions of 2025-11-25 HTTP clients that declare elicitation are
 * kept, and the server's requests to them that wait for an answer. Any
 * instance of the function reads a session (what the client declared at
 * `initialize`); the client's answer to a request (`elicitation/create` on a
 * call's SSE stream) reaches whichever instance its POST lands on, which
 * records it once, and the instance that asked takes it from here.
 */
import type { Caller } from "../ports.ts";

/** What a 2025-11-25 client declared at `initialize`. */
export interface McpSessionRecord {
  /** The `Mcp-Session-Id`. */
  id: string;
  /** The protocol version the server answered `initialize` with. */
  protocolVersion: string;
  /** The client's `capabilities`. */
  capabilities: Record<string, unknown>;
  /** The client's `clientInfo` (name, version). */
  clientInfo: Record<string, unknown>;
  expiresAt: Date;
}

/** Names a server-to-client request: its session and the JSON-RPC id the server gave it. */
export interface SessionRequestKey {
  sessionId: string;
  requestId: string;
}

/**
 * Where a request stands, read by the instance that asked: `waiting`;
 * `answered` with the client's JSON-RPC response; `cancelled` (the client
 * cancelled the call it belongs to, or ended the session); `gone` (no such
 * request: the session ended, or it was taken before).
 */
export type SessionRequestState =
  | { kind: "waiting" }
  | { kind: "answered"; response: Record<string, unknown> }
  | { kind: "cancelled" }
  | { kind: "gone" };

/** Sessions and their waiting requests, each visible only to its caller. */
export interface McpSessionStore {
  /** Stores a new session of `caller`. */
  open(caller: Caller, session: McpSessionRecord): Promise<void>;
  /**
   * The caller's live session `id` (undefined: none, another caller's, ended or
   * lapsed at `now`). A session that would lapse before `renewTo`'s half-way
   * point is renewed to `renewTo`.
   */
  find(
    caller: Caller,
    id: string,
    at: { now: Date; renewTo: Date },
  ): Promise<McpSessionRecord | undefined>;
  /** Ends the caller's session `id` (its waiting requests with it); whether there was one. */
  end(caller: Caller, id: string): Promise<boolean>;
  /** Records a request sent to the client, waiting for its answer until `expiresAt`. */
  ask(
    caller: Caller,
    request: SessionRequestKey & { relatedId?: string; expiresAt: Date },
  ): Promise<void>;
  /**
   * Records the client's `response` to a waiting request, once: false when no
   * such request waits at `now` (answered before, cancelled, withdrawn, lapsed
   * or never sent).
   */
  answer(
    caller: Caller,
    request: SessionRequestKey & { response: Record<string, unknown>; now: Date },
  ): Promise<boolean>;
  /** Cancels the requests waiting for the client's request `relatedId`; how many. */
  cancel(caller: Caller, cancel: { sessionId: string; relatedId: string }): Promise<number>;
  /**
   * Where the request stands; one that no longer waits is taken (removed). With
   * `withdraw` (the asker stops waiting) one that still waits is removed too and
   * reported `waiting`, after which no answer is accepted; an answer recorded
   * before is returned, never lost.
   */
  take(
    caller: Caller,
    request: SessionRequestKey & { withdraw?: boolean },
  ): Promise<SessionRequestState>;
  /** Removes sessions and requests lapsed before `now` (anyone's), at most `limit` of each. */
  sweep(now: Date, limit: number): Promise<number>;
}
