/**
 * Caches that keep only their newest entries: a `Map` or `Set` remembers its
 * insertion order, so the oldest entry is the first of its keys.
 */

/** Deletes the oldest entries of `entries` until it holds at most `keep`. */
export function forgetOldest<K>(entries: Map<K, unknown> | Set<K>, keep: number): void {
  for (const key of entries.keys()) {
    if (entries.size <= keep) return;
    entries.delete(key);
  }
}

/** A set that forgets its oldest entry past `limit`. */
export class BoundedSet<T> extends Set<T> {
  constructor(readonly limit: number) {
    super();
  }

  override add(value: T): this {
    if (this.has(value)) return this;
    super.add(value);
    forgetOldest(this, this.limit);
    return this;
  }
}
