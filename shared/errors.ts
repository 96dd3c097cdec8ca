/**
 * The project's error hierarchy: one base class with a stable `code`, and the
 * two tables that map a code to an HTTP status and to a JSON-RPC error code.
 */

/** Stable error codes; clients may switch on them. */
export type ErrorCode =
  | "BAD_REQUEST"
  | "INVALID_JSON"
  | "INVALID_ENCODING"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "VALIDATION_FAILED"
  | "EMPTY_MESSAGE"
  | "PAYLOAD_TOO_LARGE"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "UNAUTHORIZED"
  | "AUTH_REQUIRED"
  | "TOKEN_EXPIRED"
  | "TOKEN_MALFORMED"
  | "TOKEN_SIGNATURE_INVALID"
  | "TOKEN_AUDIENCE_INVALID"
  | "TOKEN_CLAIMS_INVALID"
  | "TOKEN_ALGORITHM_REFUSED"
  | "AUTH_KEYS_UNAVAILABLE"
  | "FORBIDDEN"
  | "TOOL_ARGS_INVALID"
  | "UNKNOWN_TOOL"
  | "TOOL_FAILED"
  | "PLANNER_INVALID_OUTPUT"
  | "MODEL_UNAVAILABLE"
  | "DB_UNAVAILABLE"
  | "DEADLINE_EXCEEDED"
  | "CANCELLED"
  | "CONFIG_INVALID"
  | "LOOP_VALIDATION"
  | "LOOP_NOT_FOUND"
  | "LOOP_STATE"
  | "LOOP_ALREADY_EXISTS"
  | "REMOTE_UNAVAILABLE"
  | "RUN_NOT_FOUND"
  | "RUN_STATE"
  | "APPROVAL_EXPIRED"
  | "RATE_LIMITED"
  | "BUDGET_EXCEEDED"
  | "INTERNAL";

/** HTTP status for each code. Server faults are 5xx, client faults 4xx. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  INVALID_JSON: 400,
  INVALID_ENCODING: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  EMPTY_MESSAGE: 422,
  PAYLOAD_TOO_LARGE: 413,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  UNAUTHORIZED: 401,
  AUTH_REQUIRED: 401,
  TOKEN_EXPIRED: 401,
  TOKEN_MALFORMED: 401,
  TOKEN_SIGNATURE_INVALID: 401,
  TOKEN_AUDIENCE_INVALID: 401,
  TOKEN_CLAIMS_INVALID: 401,
  TOKEN_ALGORITHM_REFUSED: 401,
  AUTH_KEYS_UNAVAILABLE: 503,
  FORBIDDEN: 403,
  TOOL_ARGS_INVALID: 422,
  UNKNOWN_TOOL: 422,
  TOOL_FAILED: 500,
  PLANNER_INVALID_OUTPUT: 502,
  MODEL_UNAVAILABLE: 502,
  DB_UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
  // The client closed the request (nginx's 499): nobody reads this answer, and it is not a fault.
  CANCELLED: 499,
  CONFIG_INVALID: 500,
  LOOP_VALIDATION: 422,
  LOOP_NOT_FOUND: 404,
  LOOP_STATE: 409,
  LOOP_ALREADY_EXISTS: 409,
  REMOTE_UNAVAILABLE: 502,
  RUN_NOT_FOUND: 404,
  RUN_STATE: 409,
  APPROVAL_EXPIRED: 410,
  RATE_LIMITED: 429,
  // A run stops with stopReason "budget" instead; a tool calling a model outside a run sees this.
  BUDGET_EXCEEDED: 402,
  INTERNAL: 500,
};

/** JSON-RPC error codes (MCP) for each error code. */
export const JSON_RPC_CODE: Record<ErrorCode, number> = {
  BAD_REQUEST: -32600,
  INVALID_JSON: -32700,
  INVALID_ENCODING: -32700,
  UNSUPPORTED_MEDIA_TYPE: -32600,
  VALIDATION_FAILED: -32602,
  EMPTY_MESSAGE: -32602,
  PAYLOAD_TOO_LARGE: -32600,
  NOT_FOUND: -32601,
  METHOD_NOT_ALLOWED: -32600,
  UNAUTHORIZED: -32001,
  AUTH_REQUIRED: -32001,
  TOKEN_EXPIRED: -32001,
  TOKEN_MALFORMED: -32001,
  TOKEN_SIGNATURE_INVALID: -32001,
  TOKEN_AUDIENCE_INVALID: -32001,
  TOKEN_CLAIMS_INVALID: -32001,
  TOKEN_ALGORITHM_REFUSED: -32001,
  AUTH_KEYS_UNAVAILABLE: -32603,
  FORBIDDEN: -32003,
  TOOL_ARGS_INVALID: -32602,
  UNKNOWN_TOOL: -32602,
  TOOL_FAILED: -32603,
  PLANNER_INVALID_OUTPUT: -32603,
  MODEL_UNAVAILABLE: -32603,
  DB_UNAVAILABLE: -32603,
  DEADLINE_EXCEEDED: -32603,
  CANCELLED: -32800,
  CONFIG_INVALID: -32603,
  LOOP_VALIDATION: -32602,
  LOOP_NOT_FOUND: -32602,
  LOOP_STATE: -32603,
  LOOP_ALREADY_EXISTS: -32603,
  REMOTE_UNAVAILABLE: -32603,
  RUN_NOT_FOUND: -32602,
  RUN_STATE: -32603,
  APPROVAL_EXPIRED: -32602,
  RATE_LIMITED: -32000,
  BUDGET_EXCEEDED: -32000,
  INTERNAL: -32603,
};

/** Options of an {@link AppError}. */
export interface AppErrorOptions {
  details?: unknown;
  cause?: unknown;
}

/** Base of every error the project raises on purpose. */
export class AppError extends Error {
  /** Stable machine-readable code. */
  readonly code: ErrorCode;
  /** Extra data safe to show a client (never secrets or stacks). */
  readonly details?: unknown;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.details = options.details;
  }

  /** The HTTP status this error maps to. */
  get status(): number {
    return HTTP_STATUS[this.code];
  }
}

/** Is `error` one of ours, with a stable code? */
export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** Wraps anything thrown into an {@link AppError}; unknown faults become INTERNAL. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  return new AppError(
    "INTERNAL",
    "The server failed while handling the request; try again, and report it if it persists",
    { cause: error },
  );
}

/** A short, secret-free description of a thrown value, for traces and logs. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/**
 * What kind of error this is, without its message (which may quote a user's
 * words or a tool's output): the code of our errors, else the class name. For
 * logs; the message itself goes to the trace and the audit row.
 */
export function errorKind(error: unknown): string {
  if (isAppError(error)) return error.code;
  if (error instanceof Error) return error.name;
  return typeof error;
}

// The refinement loop errors, with the names of the refinement-loop specification
// (seed 000). They live here so stores and tools both reach them without
// importing each other.

/** Base of the refinement loop errors. */
export class LoopError extends AppError {
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(code, message, { details });
    this.name = "LoopError";
  }
}

/** Invalid input: an unknown loop type, a score outside 0–100. */
export class LoopValidationError extends LoopError {
  constructor(readonly field: string, message: string) {
    super("LOOP_VALIDATION", message, { field });
    this.name = "LoopValidationError";
  }
}

/** No loop with that id belongs to the caller. */
export class LoopNotFoundError extends LoopError {
  constructor(readonly loopId: string) {
    super(
      "LOOP_NOT_FOUND",
      `Refinement loop "${loopId}" does not exist; start one with initialize_refinement_loop or pick an id from list_active_loops`,
      { loop_id: loopId },
    );
    this.name = "LoopNotFoundError";
  }
}

/** The loop cannot take this action in its current state (e.g. it is completed). */
export class LoopStateError extends LoopError {
  constructor(readonly loopId: string, message: string) {
    super("LOOP_STATE", message, { loop_id: loopId });
    this.name = "LoopStateError";
  }
}

/** A generated loop id is already taken (rare; creation retries with a new id). */
export class LoopAlreadyExistsError extends LoopError {
  constructor(readonly loopId: string) {
    super("LOOP_ALREADY_EXISTS", `Refinement loop "${loopId}" already exists; try again`, {
      loop_id: loopId,
    });
    this.name = "LoopAlreadyExistsError";
  }
}
