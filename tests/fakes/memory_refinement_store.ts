/**
 * An in-memory `RefinementStore` for unit tests, with the SQL store's
 * semantics (owner scoping, id collisions retried, updates one at a time). It
 * runs the shared refinement store suite too, so it cannot drift.
 */
import type { Caller } from "../../shared/ports.ts";
import type {
  LoopState,
  LoopType,
  RefinementStore,
} from "../../shared/store/refinement_store_port.ts";
import { LoopAlreadyExistsError, LoopNotFoundError } from "../../shared/errors.ts";
import { randomLoopId } from "../../shared/store/sql_refinement_store.ts";

/** The fake. */
export class MemoryRefinementStore implements RefinementStore {
  readonly #loops = new Map<string, { owner: string; state: LoopState }>();
  readonly #newId: () => string;
  readonly #idAttempts: number;

  constructor(
    { newId = randomLoopId, idAttempts = 5 }: { newId?: () => string; idAttempts?: number } = {},
  ) {
    this.#newId = newId;
    this.#idAttempts = idAttempts;
  }

  create(
    caller: Caller,
    { loopType, threshold, maxIterations }: {
      loopType: LoopType;
      threshold: number;
      maxIterations: number;
    },
  ): Promise<LoopState> {
    let id = "";
    for (let attempt = 0; attempt < this.#idAttempts; attempt++) {
      id = this.#newId();
      if (this.#loops.has(id)) continue;
      const now = new Date().toISOString();
      const state: LoopState = {
        id,
        loopType,
        status: "initialized",
        currentScore: null,
        scoreHistory: [],
        iteration: 0,
        threshold,
        maxIterations,
        createdAt: now,
        updatedAt: now,
      };
      this.#loops.set(id, { owner: caller.owner, state });
      return Promise.resolve(structuredClone(state));
    }
    return Promise.reject(new LoopAlreadyExistsError(id));
  }

  get(caller: Caller, id: string): Promise<LoopState> {
    const entry = this.#loops.get(id);
    if (!entry || entry.owner !== caller.owner) return Promise.reject(new LoopNotFoundError(id));
    return Promise.resolve(structuredClone(entry.state));
  }

  update(caller: Caller, id: string, change: (state: LoopState) => LoopState): Promise<LoopState> {
    // Read, change and write with no await in between, like the SQL store's row lock.
    const entry = this.#loops.get(id);
    if (!entry || entry.owner !== caller.owner) return Promise.reject(new LoopNotFoundError(id));
    try {
      entry.state = change(structuredClone(entry.state));
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.resolve(structuredClone(entry.state));
  }

  listRecent(caller: Caller, limit: number): Promise<LoopState[]> {
    const mine = [...this.#loops.values()].filter((e) => e.owner === caller.owner).map((e) =>
      e.state
    );
    return Promise.resolve(structuredClone(mine.reverse().slice(0, limit)));
  }

  async findIds(caller: Caller, prefix: string, limit: number): Promise<string[]> {
    const recent = await this.listRecent(caller, Infinity);
    return recent.map((loop) => loop.id).filter((id) => id.startsWith(prefix)).slice(0, limit);
  }
}
