/**
 * The working-memory port: per caller, one small JSON document with a version,
 * so an update is written only over the version it was made from.
 */
import type { Caller } from "../ports.ts";

/** A caller's working memory as stored (`{}` at version 0 when there is none yet). */
export interface StoredMemory {
  document: Record<string, unknown>;
  version: number;
}

/** Reads and writes working memory. */
export interface WorkingMemoryStore {
  /** The caller's document and its version. */
  getMemory(caller: Caller): Promise<StoredMemory>;
  /** Replaces the document if it is still at `expectedVersion`; false when someone wrote first. */
  putMemory(
    caller: Caller,
    document: Record<string, unknown>,
    expectedVersion: number,
  ): Promise<boolean>;
}
