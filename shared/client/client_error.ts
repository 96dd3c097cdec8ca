/** The one error every call of the typed client throws (see mcp_loop_client.ts). */

/** Codes the client itself uses, beside the server's. */
export type ClientErrorCode = "NETWORK_ERROR" | "ABORTED" | "BAD_RESPONSE";

/** Every failure of a call: the server's error, or the client's own. */
export class McpLoopError extends Error {
  /** The server's stable code (VALIDATION_FAILED, AUTH_REQUIRED, ...) or a {@link ClientErrorCode}. */
  readonly code: string;
  /** The HTTP status (0 when there was no response). */
  readonly status: number;
  /** The server's details, when it sent some. */
  readonly details?: unknown;

  constructor(
    { code, status, message, details, cause }: {
      code: string;
      status: number;
      message: string;
      details?: unknown;
      cause?: unknown;
    },
  ) {
    super(message, { cause });
    this.name = "McpLoopError";
    this.code = code;
    this.status = status;
    this.details = details;
  }
}
