/**
 * Where the function runs, detected once — by the entry, through
 * {@link detectRuntime} — and passed down: the one place that looks for
 * Supabase's Edge Runtime. On the edge, work that must outlive a response
 * (audit writes, a run whose client left, a paused run going on) is handed to
 * `EdgeRuntime.waitUntil` so the isolate stays up until it is done; locally
 * the process outlives its responses anyway.
 */
import type { Runtime } from "../config/config.ts";

/** The runtime, and how work outlives a response in it. */
export interface RuntimeInfo {
  kind: Runtime;
  /** Keeps the process (or isolate) up until `work` settles; its failure is the work's own. */
  keepAlive: (work: Promise<unknown>) => void;
}

interface EdgeRuntimeGlobal {
  EdgeRuntime?: { waitUntil(promise: Promise<unknown>): void };
}

/** This process's runtime. */
export function detectRuntime(): RuntimeInfo {
  const edge = (globalThis as EdgeRuntimeGlobal).EdgeRuntime;
  if (!edge) return LOCAL;
  return { kind: "edge", keepAlive: (work) => edge.waitUntil(work.catch(() => {})) };
}

/** A local process (Deno on a machine): it stays up while work is pending. */
export const LOCAL: RuntimeInfo = Object.freeze({ kind: "local", keepAlive: () => {} });
