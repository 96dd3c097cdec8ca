/**
 * An object whose methods load it on their first call: an adapter (and its
 * npm packages) imported only by a configuration that uses it.
 */

/** The `methods` of what `load` resolves to, loading it once, on the first call of any. */
export function onFirstUse<T extends object, K extends keyof T>(
  load: () => Promise<T>,
  methods: readonly K[],
): Pick<T, K> {
  let loading: Promise<T> | undefined;
  const call = (name: K) => async (...args: unknown[]) => {
    const target = await (loading ??= load());
    return (target[name] as (...args: unknown[]) => unknown).apply(target, args);
  };
  return Object.fromEntries(methods.map((name) => [name, call(name)])) as Pick<T, K>;
}
