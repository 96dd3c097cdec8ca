/**
 * The refinement loop errors, with the names of the refinement-loop
 * specification (seed 000) and stable codes.
 */
import { AppError, type ErrorCode } from "../errors.ts";

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
