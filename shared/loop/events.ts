/**
 * Progress events of one loop run, delivered through `onEvent` so the HTTP
 * layer can stream them without the runner knowing about HTTP. The event
 * shapes are part of the wire contract (`shared/contracts.ts`).
 */
import type { LoopEvent } from "../contracts.ts";

/** Receives progress events; must not throw (a throwing listener is ignored). */
export type LoopEventListener = (event: LoopEvent) => void;
